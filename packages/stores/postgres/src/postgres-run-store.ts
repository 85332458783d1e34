// RunStore on PostgreSQL: run records with a unique (session, idempotency key), and an event log idempotent on (run, seq).
import {
  type RunClaimExpectation,
  type AgentEvent,
  type JsonObject,
  type ListRunsOptions,
  type NewRun,
  NotFoundError,
  type RunPatch,
  type RunRecord,
  type RunStore,
  endedRunStatus,
  type StoreBatch,
} from '@spindle/core'
import { rejectNaNListBounds } from '@spindle/core/plugin-kit'
import { assertKey, fromJsonb, toJsonbText } from './jsonb-text.js'
import { mapPostgresError } from './map-postgres-error.js'
import type { SqlDatabase, SqlExecutor } from './sql-database.js'
import { afterParameter, beforeParameter, limitParameter } from './list-bounds.js'

export interface RunRow {
  id: string
  session_id: string
  status: RunRecord['status']
  step: number
  finish_reason: RunRecord['finishReason'] | null
  usage: RunRecord['usage']
  error: RunRecord['error'] | null
  idempotency_key: string | null
  request: JsonObject
  lease_owner: string | null
  lease_expires_at: string | number | null
  metadata: JsonObject
  created_at: string | number
  updated_at: string | number
  started_at: string | number | null
  finished_at: string | number | null
}

/** Patch keys and the columns they write; a key present with `undefined` clears the column (of an optional field). */
const patchColumns = {
  status: 'status',
  step: 'step',
  finishReason: 'finish_reason',
  usage: 'usage',
  error: 'error',
  metadata: 'metadata',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
} as const satisfies Partial<Record<keyof RunPatch, string>>

const jsonColumns = new Set(['usage', 'error', 'metadata'])

/** The NOT NULL columns of a record's required fields: a key present with `undefined` leaves them (see RunPatch). */
const requiredColumns: ReadonlySet<string> = new Set(['status', 'step', 'usage', 'metadata'])

/**
 * @example
 * const runs = new PostgresRunStore(poolDatabase(pool), '"spindle"')
 * await runs.createRun({ id: 'run-1', sessionId: 's-1', request: { input: 'hi' } })
 */
export class PostgresRunStore implements RunStore {
  readonly specificationVersion = 'v1' as const
  readonly #database: SqlDatabase
  readonly #s: string
  /** Set by `postgresStores()`: the batch shared by the four stores of one set. */
  batch?: StoreBatch

  constructor(database: SqlDatabase, schema: string) {
    this.#database = database
    this.#s = schema
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    const now = Date.now()
    try {
      assertKey(run.id, 'run id')
      assertKey(run.sessionId, 'run sessionId')
      if (run.idempotencyKey !== undefined) assertKey(run.idempotencyKey, 'run idempotencyKey')
      if (run.lease !== undefined) assertKey(run.lease.owner, 'run lease owner')
      const { rows } = await this.#database.query<RunRow>(
        `INSERT INTO ${this.#s}.runs (id, session_id, status, step, usage, idempotency_key, request, metadata, created_at, updated_at, lease_owner, lease_expires_at, started_at)
         VALUES ($1, $2, $3, 0, $4::jsonb, $5, $6::jsonb, $7::jsonb, $8, $8, $9, $10, $11) RETURNING *`,
        [
          run.id,
          run.sessionId,
          run.status ?? 'queued',
          JSON.stringify({ inputTokens: 0, outputTokens: 0 }),
          run.idempotencyKey ?? null,
          toJsonbText(run.request),
          toJsonbText(run.metadata ?? {}),
          now,
          run.lease?.owner ?? null,
          run.lease?.expiresAt ?? null,
          run.startedAt ?? null,
        ],
      )
      return toRun(rows[0]!)
    } catch (error) {
      throw mapPostgresError(
        error,
        run.idempotencyKey === undefined
          ? `creating run "${run.id}"`
          : `creating run "${run.id}" (session "${run.sessionId}", idempotency key "${run.idempotencyKey}"; load an existing one with findRunByIdempotencyKey)`,
      )
    }
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    try {
      const { rows } = await this.#database.query<RunRow>(`SELECT * FROM ${this.#s}.runs WHERE id = $1`, [id])
      return rows[0] === undefined ? undefined : toRun(rows[0])
    } catch (error) {
      throw mapPostgresError(error, `reading run "${id}"`)
    }
  }

  async findRunByIdempotencyKey(sessionId: string, key: string): Promise<RunRecord | undefined> {
    try {
      const { rows } = await this.#database.query<RunRow>(`SELECT * FROM ${this.#s}.runs WHERE session_id = $1 AND idempotency_key = $2`, [sessionId, key])
      return rows[0] === undefined ? undefined : toRun(rows[0])
    } catch (error) {
      throw mapPostgresError(error, `finding the run of idempotency key "${key}"`)
    }
  }

  async updateRun(id: string, patch: RunPatch): Promise<RunRecord> {
    try {
      return await updateRunRecord(this.#database, this.#s, id, patch)
    } catch (error) {
      throw mapPostgresError(error, `updating run "${id}"`)
    }
  }

  /** One `UPDATE … WHERE id = $1 AND status = … AND lease … RETURNING *`; no row back: an unknown run, or another claimed it. */
  async claimRun(id: string, expected: RunClaimExpectation, patch: RunPatch): Promise<RunRecord | undefined> {
    try {
      const claimed = await updateRunRecord(this.#database, this.#s, id, patch, expected)
      if (claimed !== undefined) return claimed
      const { rows } = await this.#database.query(`SELECT 1 FROM ${this.#s}.runs WHERE id = $1`, [id])
      if (rows.length === 0) throw new NotFoundError(`[spindle/store-postgres] run "${id}" does not exist; create it with createRun first`)
      return undefined
    } catch (error) {
      throw mapPostgresError(error, `claiming run "${id}"`)
    }
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunRecord[]> {
    rejectNaNListBounds('store-postgres', 'listRuns', options)
    const statuses = options.status === undefined ? null : [options.status].flat()
    try {
      const { rows } = await this.#database.query<RunRow>(
        `SELECT * FROM ${this.#s}.runs
         WHERE ($1::text IS NULL OR session_id = $1) AND ($2::text[] IS NULL OR status = ANY($2::text[])) AND ($3::bigint IS NULL OR created_at < $3)
         ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $4`,
        [options.sessionId ?? null, statuses, beforeParameter(options.before), limitParameter(options.limit)],
      )
      return rows.map(toRun)
    } catch (error) {
      throw mapPostgresError(error, 'listing runs')
    }
  }

  async appendEvents(runId: string, events: AgentEvent[]): Promise<void> {
    try {
      await insertRunEvents(this.#database, this.#s, [{ runId, events }])
    } catch (error) {
      throw mapPostgresError(error, `appending events of run "${runId}"`)
    }
  }

  async listEvents(runId: string, options: { after?: number; limit?: number } = {}): Promise<AgentEvent[]> {
    rejectNaNListBounds('store-postgres', 'listEvents', options)
    try {
      const { rows } = await this.#database.query<{ event: AgentEvent }>(
        `SELECT event FROM ${this.#s}.run_events WHERE run_id = $1 AND ($2::bigint IS NULL OR seq > $2) ORDER BY seq LIMIT $3`,
        [runId, afterParameter(options.after), limitParameter(options.limit)],
      )
      return rows.map((row) => fromJsonb(row.event))
    } catch (error) {
      throw mapPostgresError(error, `listing events of run "${runId}"`)
    }
  }
}

/**
 * `updateRun` as one statement (the single method and a batch share it); pg errors are thrown unmapped. With
 * `expected` (`claimRun`), the row is updated only while it has that status and lease, and `undefined` comes back
 * when no row was (the caller tells an unknown run from a lost claim).
 */
export async function updateRunRecord(executor: SqlExecutor, schema: string, id: string, patch: RunPatch): Promise<RunRecord>
export async function updateRunRecord(
  executor: SqlExecutor,
  schema: string,
  id: string,
  patch: RunPatch,
  expected: RunClaimExpectation,
): Promise<RunRecord | undefined>
export async function updateRunRecord(
  executor: SqlExecutor,
  schema: string,
  id: string,
  given: RunPatch,
  expected?: RunClaimExpectation,
): Promise<RunRecord | undefined> {
  const values: unknown[] = [id, Date.now()]
  const assignments = runPatchAssignments(
    given,
    (value, cast) => {
      values.push(value)
      return `$${values.length}${cast ? `::${cast}` : ''}`
    },
    '$2',
  )
  let condition = 'id = $1'
  if (expected !== undefined) {
    values.push(expected.status)
    condition += ` AND status = $${values.length}`
    if (expected.lease === undefined) condition += ' AND (lease_owner IS NULL OR lease_expires_at IS NULL)'
    else {
      values.push(expected.lease.owner, expected.lease.expiresAt)
      condition += ` AND lease_owner = $${values.length - 1} AND lease_expires_at = $${values.length}`
    }
  }
  const { rows } = await executor.query<RunRow>(`UPDATE ${schema}.runs SET ${assignments.join(', ')} WHERE ${condition} RETURNING *`, values)
  if (rows[0] === undefined) {
    if (expected !== undefined) return undefined
    throw new NotFoundError(`[spindle/store-postgres] run "${id}" does not exist; create it with createRun first`)
  }
  return toRun(rows[0])
}

/**
 * The SET list of a run record's patch (with `updated_at`), each value a parameter from `parameter`; `now` is the
 * parameter of the time of the write. A run's end gets the status its finish reason implies (core's one rule, as in
 * every store): a timeout is failed. Shared by `updateRunRecord` and the batch statement.
 */
export function runPatchAssignments(given: RunPatch, parameter: (value: unknown, cast?: string) => string, now: string): string[] {
  const status = endedRunStatus(given)
  const patch = status === given.status ? given : { ...given, status }
  const assignments: string[] = []
  for (const [key, column] of Object.entries(patchColumns)) {
    if (!Object.hasOwn(patch, key)) continue
    const value = (patch as Record<string, unknown>)[key]
    // A required field present with `undefined` is left as it is, like an absent key.
    if (value === undefined && requiredColumns.has(column)) continue
    const json = jsonColumns.has(column)
    assignments.push(`${column} = ${parameter(value === undefined ? null : json ? toJsonbText(value) : value, json ? 'jsonb' : undefined)}`)
  }
  if (Object.hasOwn(patch, 'lease')) {
    if (patch.lease !== undefined) assertKey(patch.lease.owner, 'run lease owner')
    assignments.push(`lease_owner = ${parameter(patch.lease?.owner ?? null)}`, `lease_expires_at = ${parameter(patch.lease?.expiresAt ?? null)}`)
  }
  // Releasing the idempotency key (present in the patch, `undefined`): the session's next run may take it.
  if (Object.hasOwn(patch, 'idempotencyKey')) assignments.push('idempotency_key = NULL')
  assignments.push(`updated_at = GREATEST(updated_at, ${now})`)
  return assignments
}

/**
 * `appendEvents` for one or more runs in one INSERT (the single method and a batch share it); a (run, seq) already
 * stored is skipped, so appending the same events again is a no-op. pg errors are thrown unmapped.
 */
export async function insertRunEvents(
  executor: SqlExecutor,
  schema: string,
  logs: ReadonlyArray<{ runId: string; events: readonly AgentEvent[] }>,
): Promise<void> {
  const nonEmpty = logs.filter((log) => log.events.length > 0)
  if (nonEmpty.length === 0) return
  for (const log of nonEmpty) assertKey(log.runId, 'event runId')
  await executor.query(
    `INSERT INTO ${schema}.run_events (run_id, seq, event)
     SELECT l.value->>'run_id', (e.value->>'seq')::bigint, e.value
     FROM jsonb_array_elements($1::jsonb) AS l CROSS JOIN LATERAL jsonb_array_elements(l.value->'events') AS e
     ON CONFLICT (run_id, seq) DO NOTHING`,
    [toJsonbText(nonEmpty.map((log) => ({ run_id: log.runId, events: log.events })))],
  )
}

function optional(value: string | number | null): number | undefined {
  return value === null ? undefined : Number(value)
}

/** A run record from its row (as pg returns it, or as `to_json` of the row). */
export function toRun(row: RunRow): RunRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    status: row.status,
    step: Number(row.step),
    ...(row.finish_reason !== null && { finishReason: row.finish_reason }),
    usage: fromJsonb(row.usage),
    ...(row.error !== null && { error: fromJsonb(row.error) }),
    ...(row.idempotency_key !== null && { idempotencyKey: row.idempotency_key }),
    request: fromJsonb(row.request),
    ...(row.lease_owner !== null && row.lease_expires_at !== null && { lease: { owner: row.lease_owner, expiresAt: Number(row.lease_expires_at) } }),
    metadata: fromJsonb(row.metadata),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    ...(row.started_at !== null && { startedAt: optional(row.started_at) }),
    ...(row.finished_at !== null && { finishedAt: optional(row.finished_at) }),
  }
}
