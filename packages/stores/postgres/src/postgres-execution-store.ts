// ExecutionStore on PostgreSQL: the tool-call journal; `start` is one upsert that never overwrites a terminal record.
import { type ExecutionRecord, type ExecutionStatus, type ExecutionStore, type JsonValue, type NewExecution, NotFoundError } from '@spindle/core'
import { mapPostgresError } from './map-postgres-error.js'
import type { SqlDatabase } from './sql-database.js'

interface ExecutionRow {
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
}

/**
 * @example
 * const journal = new PostgresExecutionStore(poolDatabase(pool), '"spindle"')
 * const { created } = await journal.start({ key: 'r:1:c', runId: 'r', step: 1, callId: 'c', toolName: 'echo', args: {} })
 */
export class PostgresExecutionStore implements ExecutionStore {
  readonly specificationVersion = 'v1' as const
  readonly #database: SqlDatabase
  readonly #s: string

  constructor(database: SqlDatabase, schema: string) {
    this.#database = database
    this.#s = schema
  }

  async start(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }> {
    try {
      // Inserted → created; a `started` row gets attempt + 1; a terminal row is left alone (no row returned).
      const { rows } = await this.#database.query<ExecutionRow>(
        `INSERT INTO ${this.#s}.executions AS x (key, run_id, step, call_id, tool_name, args, status, attempt, started_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, 'started', 1, $7)
         ON CONFLICT (key) DO UPDATE SET attempt = x.attempt + 1 WHERE x.status = 'started'
         RETURNING x.*, (x.xmax = 0) AS created`,
        [execution.key, execution.runId, execution.step, execution.callId, execution.toolName, JSON.stringify(execution.args ?? null), Date.now()],
      )
      if (rows[0] !== undefined) return { record: toExecution(rows[0]), created: rows[0].created === true }
      const existing = await this.get(execution.key)
      if (existing === undefined) return await this.start(execution)
      return { record: existing, created: false }
    } catch (error) {
      throw mapPostgresError(error, `starting execution "${execution.key}"`)
    }
  }

  async finish(
    key: string,
    outcome: { status: Exclude<ExecutionStatus, 'started'>; result?: JsonValue; error?: { code: string; message: string } },
  ): Promise<ExecutionRecord> {
    let rows: ExecutionRow[]
    try {
      ;({ rows } = await this.#database.query<ExecutionRow>(
        `UPDATE ${this.#s}.executions SET status = $2, result = $3::jsonb, error = $4::jsonb, finished_at = $5
         WHERE key = $1 AND status = 'started' RETURNING *`,
        [
          key,
          outcome.status,
          outcome.result === undefined ? null : JSON.stringify(outcome.result),
          outcome.error === undefined ? null : JSON.stringify(outcome.error),
          Date.now(),
        ],
      ))
    } catch (error) {
      throw mapPostgresError(error, `finishing execution "${key}"`)
    }
    if (rows[0] !== undefined) return toExecution(rows[0])
    const existing = await this.get(key)
    if (existing === undefined) throw new NotFoundError(`[spindle/store-postgres] execution "${key}" was never started; call start before finish`)
    return existing
  }

  async get(key: string): Promise<ExecutionRecord | undefined> {
    try {
      const { rows } = await this.#database.query<ExecutionRow>(`SELECT * FROM ${this.#s}.executions WHERE key = $1`, [key])
      return rows[0] === undefined ? undefined : toExecution(rows[0])
    } catch (error) {
      throw mapPostgresError(error, `reading execution "${key}"`)
    }
  }

  async listByRun(runId: string): Promise<ExecutionRecord[]> {
    try {
      const { rows } = await this.#database.query<ExecutionRow>(`SELECT * FROM ${this.#s}.executions WHERE run_id = $1 ORDER BY ordinal`, [runId])
      return rows.map(toExecution)
    } catch (error) {
      throw mapPostgresError(error, `listing executions of run "${runId}"`)
    }
  }
}

function toExecution(row: ExecutionRow): ExecutionRecord {
  return {
    key: row.key,
    runId: row.run_id,
    step: Number(row.step),
    callId: row.call_id,
    toolName: row.tool_name,
    args: row.args,
    status: row.status,
    ...(row.result !== null && { result: row.result }),
    ...(row.error !== null && { error: row.error }),
    attempt: Number(row.attempt),
    startedAt: Number(row.started_at),
    ...(row.finished_at !== null && { finishedAt: Number(row.finished_at) }),
  }
}
