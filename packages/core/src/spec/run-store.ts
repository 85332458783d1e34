// RunStore, spec v1: run records (status, step, finish reason, usage, lease) and each run's event log.
import type { StoreBatch } from './store-batch.js'
import type { AgentEvent } from './events.js'
import type { JsonObject, JsonValue } from './json.js'
import type { Usage } from './messages.js'
import type { RunError } from './run-error.js'

/** Where a run stands: `queued` (enqueued, not started), `running`, `suspended` (awaiting approval), `interrupted` (left by a stopped process, ready to resume), or ended: `completed`, `failed`, `cancelled`. */
export type RunStatus = 'queued' | 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled' | 'interrupted'

/**
 * Why a run ended or stopped: `stop` (the model answered), a limit of the policy (`max_steps`, `max_tool_calls`,
 * `budget`, `timeout`), `cancelled`, `awaiting_approval` (suspended), `policy` (a guard refused the run, e.g. a
 * repeated call loop), the model's own `length` or `content_filter`, or `error` (see `RunOutput.error`).
 */
export type FinishReason =
  'stop' | 'max_steps' | 'max_tool_calls' | 'budget' | 'timeout' | 'cancelled' | 'awaiting_approval' | 'policy' | 'length' | 'content_filter' | 'error'

/** A run as stored: its request, status, finish reason, usage, lease (owner and expiry) and timestamps. */
export interface RunRecord {
  id: string
  sessionId: string
  status: RunStatus
  step: number
  finishReason?: FinishReason
  usage: Usage
  /** Why the run failed (or timed out): its code, message, and the provider's status, retryability and name when known. */
  error?: RunError
  idempotencyKey?: string
  /** The serializable request: input, agent spec, model id, metadata. */
  request: JsonObject
  /** Who holds the run (a process / worker id) and until when. */
  lease?: { owner: string; expiresAt: number }
  metadata: JsonObject
  createdAt: number
  updatedAt: number
  startedAt?: number
  finishedAt?: number
}

/**
 * A run to create. `startedAt` and `lease` let a run that starts at once be created with them (one write instead
 * of a create and an update); a store written before they existed may ignore them, and the runtime then writes
 * them with `updateRun` when the returned record lacks them.
 */
export type NewRun = Pick<RunRecord, 'id' | 'sessionId' | 'request'> &
  Partial<Pick<RunRecord, 'status' | 'idempotencyKey' | 'metadata' | 'startedAt' | 'lease'>>

/**
 * A patch of a run record. An absent key leaves its field unchanged. A key present with `undefined`:
 * - on an optional field (`finishReason`, `error`, `lease`, `startedAt`, `finishedAt`, `idempotencyKey`) clears it;
 * - on a required field (`status`, `step`, `usage`, `metadata`) leaves it unchanged, as if absent (a record always has them).
 */
export type RunPatch = Partial<Pick<RunRecord, 'status' | 'step' | 'finishReason' | 'usage' | 'error' | 'lease' | 'metadata' | 'startedAt' | 'finishedAt'>> & {
  /**
   * Present (with `undefined`): releases the run's idempotency key, so that a new run of the session may take it
   * (the runtime does this once the key is older than `policy.idempotencyTtlMs`). A key cannot be set by a patch.
   */
  idempotencyKey?: undefined
}

/**
 * Pagination bounds in list methods (`limit`, `after`, `before`, here and in SessionStore) take any number:
 * `Infinity` / `-Infinity` mean no bound, fractions select what they select on integers. `NaN` selects nothing
 * meaningful (it compares false with everything) and is almost always a caller's bug (`Number(undefined)`), so a
 * store rejects it with a `ConfigurationError` naming the option, and reads nothing.
 */
/** What `RunStore.claimRun` expects the stored record to still have (`lease: undefined`: no lease). */
export interface RunClaimExpectation {
  status: RunStatus
  lease: { owner: string; expiresAt: number } | undefined
}

/** Filters and paging of `RunStore.listRuns`. */
export interface ListRunsOptions {
  sessionId?: string
  status?: RunStatus | RunStatus[]
  limit?: number
  /** Runs created strictly before this time (newest first). */
  before?: number
}

/** Spec v1: where runs and their event logs live, with the compare-and-set claim that lets exactly one process continue a run. Check an implementation with `describeRunStore` from `@spindle/testing`. */
export interface RunStore {
  readonly specificationVersion: 'v1'
  /** Optional: the backend's atomic multi-store writes (the same object on its sessions, runs, executions and snapshots stores). */
  readonly batch?: StoreBatch
  /** Throws `DuplicateError` when the id exists, or when `(sessionId, idempotencyKey)` is taken. */
  createRun(run: NewRun): Promise<RunRecord>
  getRun(id: string): Promise<RunRecord | undefined>
  findRunByIdempotencyKey(sessionId: string, key: string): Promise<RunRecord | undefined>
  /**
   * Throws `NotFoundError` for an unknown run. An absent key leaves its field; `{ lease: undefined }` (a key present
   * with `undefined`) clears an optional field, and leaves a required one (`status`, `step`, `usage`, `metadata`) as it
   * is — see `RunPatch`.
   */
  updateRun(id: string, patch: RunPatch): Promise<RunRecord>
  /**
   * Optional (a store without it still works: the runtime then claims a run with `updateRun`, as before this method
   * existed). A compare-and-set `updateRun`: applies `patch` only if the stored record still has exactly
   * `expected.status` and `expected.lease` (same owner and expiry, or no lease for `undefined`), atomically — in one
   * conditional statement or transaction, also against other processes sharing the backend. Resolves the updated
   * record, or `undefined` when the record no longer matches (another writer got there first; nothing written).
   * Throws `NotFoundError` for an unknown run. The runtime claims a crashed or queued run with it before writing
   * anything for the run, so that two processes resuming it at once cannot both continue it.
   *
   * @example
   * const run = (await runs.getRun(runId))!
   * const patch = { status: 'running', lease: { owner: 'worker-2', expiresAt: Date.now() + 30_000 } } as const
   * const claimed = runs.claimRun ? await runs.claimRun(runId, { status: run.status, lease: run.lease }, patch) : await runs.updateRun(runId, patch)
   * if (claimed === undefined) console.log('another process took the run first; nothing was written')
   */
  claimRun?(id: string, expected: RunClaimExpectation, patch: RunPatch): Promise<RunRecord | undefined>
  /** Newest first. */
  listRuns(options?: ListRunsOptions): Promise<RunRecord[]>
  /**
   * Appends events; each carries its per-run `seq`. Appending a `seq` already stored is ignored.
   *
   * The run record need not exist: the event log is keyed by run id alone, so events for a run id that was never
   * created here (its record may live in another store) are stored and listed like any others. Unlike `updateRun`,
   * this never throws `NotFoundError`; the memory, SQLite and PostgreSQL stores keep no foreign key from events to runs.
   */
  appendEvents(runId: string, events: AgentEvent[]): Promise<void>
  /** Events with `seq > after`, in order. */
  listEvents(runId: string, options?: { after?: number; limit?: number }): Promise<AgentEvent[]>
}

export type { JsonValue }
