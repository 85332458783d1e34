// ExecutionStore on PostgreSQL: the tool-call journal; `start` is one upsert that never overwrites a terminal record.
import {
  type ExecutionOutcome,
  type ExecutionRecord,
  type ExecutionStatus,
  type ExecutionStore,
  type JsonValue,
  type NewExecution,
  NotFoundError,
  type StoreBatch,
} from '@spindle/core'
import { assertKey, fromJsonb, fromText, toJsonbText, toText } from './jsonb-text.js'
import { mapPostgresError } from './map-postgres-error.js'
import type { SqlDatabase, SqlExecutor } from './sql-database.js'

export interface ExecutionRow {
  key: string
  run_id: string
  step: number
  call_id: string
  tool_name: string
  args: JsonValue
  status: ExecutionStatus
  result: JsonValue | null
  error: { code: string; message: string } | null
  attempt: number
  started_at: string | number
  finished_at: string | number | null
  created?: boolean
  /** `result IS NOT NULL`: a jsonb `null` result (a tool that returned null) reads back as JS null, like SQL NULL. */
  has_result: boolean
}

/** Every column, and whether `result` holds a value (jsonb `null` included) rather than SQL NULL (no result). */
const columns = '*, (result IS NOT NULL) AS has_result'

/**
 * @example
 * const journal = new PostgresExecutionStore(poolDatabase(pool), '"spindle"')
 * const { created } = await journal.start({ key: 'r:1:c', runId: 'r', step: 1, callId: 'c', toolName: 'echo', args: {} })
 */
export class PostgresExecutionStore implements ExecutionStore {
  readonly specificationVersion = 'v1' as const
  readonly #database: SqlDatabase
  readonly #s: string
  /** Set by `postgresStores()`: the batch shared by the four stores of one set. */
  batch?: StoreBatch

  constructor(database: SqlDatabase, schema: string) {
    this.#database = database
    this.#s = schema
  }

  async start(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }> {
    try {
      return (await startExecutions(this.#database, this.#s, [execution]))[0]!
    } catch (error) {
      throw mapPostgresError(error, `starting execution "${execution.key}"`)
    }
  }

  async finish(key: string, outcome: ExecutionOutcome): Promise<ExecutionRecord> {
    try {
      return (await finishExecutions(this.#database, this.#s, [{ key, outcome }]))[0]!
    } catch (error) {
      throw mapPostgresError(error, `finishing execution "${key}"`)
    }
  }

  async get(key: string): Promise<ExecutionRecord | undefined> {
    try {
      const { rows } = await this.#database.query<ExecutionRow>(`SELECT ${columns} FROM ${this.#s}.executions WHERE key = $1`, [toText(key)])
      return rows[0] === undefined ? undefined : toExecution(rows[0])
    } catch (error) {
      throw mapPostgresError(error, `reading execution "${key}"`)
    }
  }

  async listByRun(runId: string): Promise<ExecutionRecord[]> {
    try {
      const { rows } = await this.#database.query<ExecutionRow>(`SELECT ${columns} FROM ${this.#s}.executions WHERE run_id = $1 ORDER BY ordinal`, [runId])
      return rows.map(toExecution)
    } catch (error) {
      throw mapPostgresError(error, `listing executions of run "${runId}"`)
    }
  }
}

/**
 * The JSON array text of journal starts, as `upsertStarts` reads it (validates each run id). The key, call id and
 * tool name are escaped with the JSON (a call id comes from the model): see `toText`.
 */
export function startsPayload(executions: readonly NewExecution[]): string {
  for (const execution of executions) assertKey(execution.runId, 'execution runId')
  return toJsonbText(
    executions.map((execution) => ({
      key: execution.key,
      run_id: execution.runId,
      step: execution.step,
      call_id: execution.callId,
      tool_name: execution.toolName,
      args: execution.args ?? null,
    })),
  )
}

/**
 * The upsert of journal starts (`payload`: the parameter holding `startsPayload`, `now`: the start time's), aliased
 * `x`, without its RETURNING: inserted → a new row; a `started` row gets attempt + 1; a terminal row is left alone
 * (not returned). ORDER BY keeps `ordinal` (listByRun's order) in the order the executions were given.
 */
export function upsertStarts(schema: string, payload: string, now: string): string {
  return `INSERT INTO ${schema}.executions AS x (key, run_id, step, call_id, tool_name, args, status, attempt, started_at)
     SELECT e.value->>'key', e.value->>'run_id', (e.value->>'step')::integer, e.value->>'call_id', e.value->>'tool_name', e.value->'args', 'started', 1, ${now}
     FROM jsonb_array_elements(${payload}) WITH ORDINALITY AS e ORDER BY e.ordinality
     ON CONFLICT (key) DO UPDATE SET attempt = x.attempt + 1 WHERE x.status = 'started'`
}

/**
 * `start` for one or more executions with distinct keys, in one upsert (the single method and a batch share it):
 * inserted → created; a `started` row gets attempt + 1; a terminal row is left alone and read back. Results are in
 * the order of `executions`; pg errors are thrown unmapped.
 */
export async function startExecutions(
  executor: SqlExecutor,
  schema: string,
  executions: readonly NewExecution[],
): Promise<Array<{ record: ExecutionRecord; created: boolean }>> {
  const { rows } = await executor.query<ExecutionRow>(
    `${upsertStarts(schema, '$1::jsonb', '$2::bigint')}
     RETURNING x.*, (x.xmax = 0) AS created, (x.result IS NOT NULL) AS has_result`,
    [startsPayload(executions), Date.now()],
  )
  const written = new Map(rows.map((row) => [fromText(row.key), row]))
  const terminal = executions.filter((execution) => !written.has(execution.key)).map((execution) => execution.key)
  const existing = terminal.length === 0 ? new Map<string, ExecutionRow>() : await readExecutions(executor, schema, terminal)
  const results: Array<{ record: ExecutionRecord; created: boolean }> = []
  for (const execution of executions) {
    const row = written.get(execution.key) ?? existing.get(execution.key)
    // Deleted between the upsert and the read: start it again.
    if (row === undefined) results.push((await startExecutions(executor, schema, [execution]))[0]!)
    else results.push({ record: toExecution(row), created: row.created === true })
  }
  return results
}

/**
 * `finish` for one or more executions with distinct keys, in one UPDATE (the single method and a batch share it):
 * only a `started` record moves; a finished one is returned as it is; a key never started is a NotFoundError.
 */
export async function finishExecutions(
  executor: SqlExecutor,
  schema: string,
  finishes: ReadonlyArray<{ key: string; outcome: ExecutionOutcome }>,
): Promise<ExecutionRecord[]> {
  // A missing `result` / `error` is SQL NULL (`->` of an absent key), as the single statement always wrote it.
  const payload = toJsonbText(finishes.map(({ key, outcome }) => ({ key, status: outcome.status, result: outcome.result, error: outcome.error })))
  const { rows } = await executor.query<ExecutionRow>(
    `UPDATE ${schema}.executions AS x SET status = f.value->>'status', result = f.value->'result', error = f.value->'error', finished_at = $2::bigint
     FROM jsonb_array_elements($1::jsonb) AS f
     WHERE x.key = f.value->>'key' AND x.status = 'started'
     RETURNING x.*, (x.result IS NOT NULL) AS has_result`,
    [payload, Date.now()],
  )
  const written = new Map(rows.map((row) => [fromText(row.key), row]))
  const rest = finishes.filter(({ key }) => !written.has(key)).map(({ key }) => key)
  const existing = rest.length === 0 ? new Map<string, ExecutionRow>() : await readExecutions(executor, schema, rest)
  return finishes.map(({ key }) => {
    const row = written.get(key) ?? existing.get(key)
    if (row === undefined) throw new NotFoundError(`[spindle/store-postgres] execution "${key}" was never started; call start before finish`)
    return toExecution(row)
  })
}

/** The journal rows of `keys` (unescaped keys), by key. */
export async function readExecutions(executor: SqlExecutor, schema: string, keys: string[]): Promise<Map<string, ExecutionRow>> {
  const { rows } = await executor.query<ExecutionRow>(`SELECT ${columns} FROM ${schema}.executions WHERE key = ANY($1::text[])`, [keys.map(toText)])
  return new Map(rows.map((row) => [fromText(row.key), row]))
}

/** The columns a journal row keeps from its start, as pg returns them (or `to_json` of them). */
export type StartedColumns = Pick<ExecutionRow, 'key' | 'run_id' | 'step' | 'call_id' | 'tool_name' | 'args' | 'attempt' | 'started_at'>

/** The fields of a journal record its start wrote (the key, call id and tool name unescaped, numbers as numbers). */
export function startedFields(row: StartedColumns): Pick<ExecutionRecord, 'key' | 'runId' | 'step' | 'callId' | 'toolName' | 'args' | 'attempt' | 'startedAt'> {
  return {
    key: fromText(row.key),
    runId: row.run_id,
    step: Number(row.step),
    callId: fromText(row.call_id),
    toolName: fromText(row.tool_name),
    args: fromJsonb(row.args),
    attempt: Number(row.attempt),
    startedAt: Number(row.started_at),
  }
}

/** A journal record from its row (as pg returns it, or as `to_json` of the row with `has_result`). */
export function toExecution(row: ExecutionRow): ExecutionRecord {
  const { key, runId, step, callId, toolName, args, attempt, startedAt } = startedFields(row)
  return {
    key,
    runId,
    step,
    callId,
    toolName,
    args,
    status: row.status,
    ...(row.has_result && { result: fromJsonb(row.result) as JsonValue }),
    ...(row.error !== null && { error: fromJsonb(row.error) }),
    attempt,
    startedAt,
    ...(row.finished_at !== null && { finishedAt: Number(row.finished_at) }),
  }
}
