// Rules every store applies alike, exported for store authors: how a patch changes a run record, what a claim
// compares, and which list bounds are refused. The memory, SQLite, PostgreSQL and example Redis stores use them.
import { ConfigurationError } from '../errors/errors.js'
import type { RunClaimExpectation, RunPatch, RunRecord } from '../spec/run-store.js'
import { endedRunStatus } from '../spec/run-status.js'

/** Fields every run record has: a patch key present with `undefined` leaves them (it clears only optional ones). */
const requiredRunFields: ReadonlySet<string> = new Set(['status', 'step', 'usage', 'metadata'])

/**
 * Applies `patch` to `record` in place, as `RunStore.updateRun` specifies: an absent key leaves its field; a key
 * present with `undefined` clears an optional field and leaves a required one. A patch that ends a run (an ending
 * status with a finish reason) gets the status `runStatusOf(finishReason)` gives (`endedRunStatus`), so that every
 * store lists a run that timed out as `failed`. Bumps `updatedAt` (never backwards).
 * Values are taken as they are: pass a copy of a caller's patch when the record must not share its objects.
 *
 * @example
 * const record = applyRunPatch(JSON.parse(row.record), patch)
 */
export function applyRunPatch(record: RunRecord, patch: RunPatch): RunRecord {
  const target = record as unknown as Record<string, unknown>
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) target[key] = value
    else if (!requiredRunFields.has(key)) delete target[key]
  }
  const status = endedRunStatus(patch)
  if (status !== undefined) record.status = status
  record.updatedAt = Math.max(Date.now(), record.updatedAt)
  return record
}

/**
 * Whether a stored record still has the status and lease a `RunStore.claimRun` expects (`lease: undefined`: no
 * lease; a lease matches on its owner and its expiry).
 *
 * @example
 * if (!runClaimMatches(stored, expected)) return undefined
 */
export function runClaimMatches(record: Pick<RunRecord, 'status' | 'lease'>, expected: RunClaimExpectation): boolean {
  if (record.status !== expected.status) return false
  const { lease } = record
  if (lease === undefined || expected.lease === undefined) return lease === expected.lease
  return lease.owner === expected.lease.owner && lease.expiresAt === expected.lease.expiresAt
}

/**
 * Refuses `NaN` as a list bound (`limit`, `after`, `before`) with a `ConfigurationError` naming the option: it
 * selects nothing meaningful and is almost always a caller's bug (`Number(undefined)`). `store` names the plugin in
 * the message (`store-sqlite`).
 *
 * @example
 * rejectNaNListBounds('store-redis', 'listRuns', options)
 */
export function rejectNaNListBounds(store: string, method: string, options: { limit?: number; after?: number; before?: number }): void {
  for (const name of ['limit', 'after', 'before'] as const) {
    if (Number.isNaN(options[name])) {
      throw new ConfigurationError(`[spindle/${store}] ${method}: option "${name}" is NaN; pass a number (Infinity for no bound) or leave it out`, {
        details: { option: name },
      })
    }
  }
}
