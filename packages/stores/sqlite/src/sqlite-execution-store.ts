// SQLite ExecutionStore: the tool-call journal; start/finish are atomic so two processes never both "create" a key.
import {
  NotFoundError,
  type ExecutionRecord,
  type ExecutionStatus,
  type ExecutionStore,
  type JsonValue,
  type NewExecution,
} from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'
import { withSqliteErrors } from './map-sqlite-error.js'
import { StatementCache } from './statement-cache.js'
import { assertKey, fromJsonText, toJsonText } from './sqlite-values.js'

/**
 * The execution journal in SQLite: a record per `${runId}:${step}:${callId}` key, `started` until finished,
 * never overwritten once terminal.
 *
 * @example
 * const journal = new SqliteExecutionStore(database)
 * const { created } = await journal.start({ key: 'run:1:call', runId: 'run', step: 1, callId: 'call', toolName: 'echo', args: {} })
 */
export class SqliteExecutionStore implements ExecutionStore {
  readonly specificationVersion = 'v1' as const
  readonly #database: BetterSqlite3.Database
  readonly #sql: StatementCache

  constructor(database: BetterSqlite3.Database) {
    this.#database = database
    this.#sql = new StatementCache(database)
  }

  async start(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }> {
    assertKey(execution.key, 'Execution key')
    assertKey(execution.runId, 'Execution runId')
    const fresh: ExecutionRecord = {
      key: execution.key,
      runId: execution.runId,
      step: execution.step,
      callId: execution.callId,
      toolName: execution.toolName,
      args: execution.args,
      status: 'started',
      attempt: 1,
      startedAt: 0,
    }
    return withSqliteErrors(`start execution "${execution.key}"`, () =>
      this.#database
        .transaction(() => {
          const existing = this.#read(execution.key)
          if (existing !== undefined) {
            if (existing.status === 'started') {
              existing.attempt += 1
              this.#write(existing)
            }
            return { record: existing, created: false }
          }
          fresh.startedAt = Date.now()
          const text = toJsonText(fresh)
          this.#sql
            .get('INSERT INTO executions (key, run_id, status, record) VALUES (?, ?, ?, ?)')
            .run(fresh.key, fresh.runId, fresh.status, text)
          return { record: fromJsonText<ExecutionRecord>(text), created: true }
        })
        .immediate(),
    )
  }

  async finish(
    key: string,
    outcome: { status: Exclude<ExecutionStatus, 'started'>; result?: JsonValue; error?: { code: string; message: string } },
  ): Promise<ExecutionRecord> {
    return withSqliteErrors(`finish execution "${key}"`, () =>
      this.#database
        .transaction(() => {
          const record = this.#read(key)
          if (record === undefined) {
            throw new NotFoundError(`[spindle/store-sqlite] Execution "${key}" was never started; call start before finish`)
          }
          if (record.status !== 'started') return record
          record.status = outcome.status
          if (outcome.result !== undefined) record.result = outcome.result
          if (outcome.error !== undefined) record.error = outcome.error
          record.finishedAt = Date.now()
          return fromJsonText<ExecutionRecord>(this.#write(record))
        })
        .immediate(),
    )
  }

  async get(key: string): Promise<ExecutionRecord | undefined> {
    return withSqliteErrors(`read execution "${key}"`, () => this.#read(key))
  }

  async listByRun(runId: string): Promise<ExecutionRecord[]> {
    return withSqliteErrors(`list executions of run "${runId}"`, () => {
      const rows = this.#sql.get('SELECT record FROM executions WHERE run_id = ? ORDER BY position ASC').all(runId) as Array<{
        record: string
      }>
      return rows.map((row) => fromJsonText<ExecutionRecord>(row.record))
    })
  }

  #read(key: string): ExecutionRecord | undefined {
    const row = this.#sql.get('SELECT record FROM executions WHERE key = ?').get(key) as { record: string } | undefined
    return row === undefined ? undefined : fromJsonText<ExecutionRecord>(row.record)
  }

  #write(record: ExecutionRecord): string {
    const text = toJsonText(record)
    this.#sql.get('UPDATE executions SET status = ?, record = ? WHERE key = ?').run(record.status, text, record.key)
    return text
  }
}
