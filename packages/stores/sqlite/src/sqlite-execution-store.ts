// SQLite ExecutionStore: the tool-call journal; start/finish are atomic so two processes never both "create" a key.
import {
  NotFoundError,
  type ExecutionOutcome,
  type ExecutionRecord,
  type ExecutionStore,
  type NewExecution,
  type StoreBatch,
  type StoreWrite,
} from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'
import { withSqliteErrors } from './map-sqlite-error.js'
import { StatementCache } from './statement-cache.js'
import { assertKey, fromJsonText, toJsonText } from './sqlite-values.js'
import { type ApplyWrite, prepareWrite, runWrite } from './sqlite-write.js'
import { type GroupCommit, groupCommitOf } from './group-commit.js'

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
  /** Set by `sqliteStores()`: the batch shared by the sessions, runs, executions and snapshots stores of one database. */
  batch?: StoreBatch
  readonly #sql: StatementCache
  /** The connection's group commit: every write of this store commits through it. */
  readonly #group: GroupCommit

  constructor(database: BetterSqlite3.Database) {
    this.#sql = new StatementCache(database)
    this.#group = groupCommitOf(database)
  }

  async start(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }> {
    return runWrite(this.#group, this, { type: 'execution.start', execution }) as Promise<{ record: ExecutionRecord; created: boolean }>
  }

  async finish(key: string, outcome: ExecutionOutcome): Promise<ExecutionRecord> {
    return runWrite(this.#group, this, { type: 'execution.finish', key, outcome }) as Promise<ExecutionRecord>
  }

  /** Checks and serializes a start or finish (one write of a batch, or the method itself); returns the function that writes it. */
  [prepareWrite](write: StoreWrite): ApplyWrite {
    if (write.type === 'execution.start') {
      const { execution } = write
      assertKey(execution.key, 'Execution key')
      assertKey(execution.runId, 'Execution runId')
      // Serialized before the write lock is taken: a value that cannot be stored fails before anything is written.
      const fresh: ExecutionRecord = {
        key: execution.key,
        runId: execution.runId,
        step: execution.step,
        callId: execution.callId,
        toolName: execution.toolName,
        args: execution.args,
        status: 'started',
        attempt: 1,
        startedAt: Date.now(),
      }
      const text = toJsonText(fresh)
      return () => this.#start(fresh, text)
    }
    if (write.type !== 'execution.finish') throw new TypeError(`[spindle/store-sqlite] the execution store cannot apply "${write.type}"`)
    return () => this.#finish(write.key, write.outcome)
  }

  /** Inside the write transaction: inserts a new key, or counts an attempt on a started one; a terminal one stays. */
  #start(fresh: ExecutionRecord, text: string): { record: ExecutionRecord; created: boolean } {
    // The usual case, a new key, is one statement; a key stored already is read back only then.
    const inserted = this.#sql
      .get('INSERT INTO executions (key, run_id, status, record) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING')
      .run(fresh.key, fresh.runId, fresh.status, text)
    // The record serialized above, built on the caller's args: the store keeps no objects, so nothing is shared.
    if (inserted.changes === 1) return { record: fresh, created: true }
    const existing = this.#read(fresh.key)!
    if (existing.status === 'started') {
      existing.attempt += 1
      this.#write(existing)
    }
    return { record: existing, created: false }
  }

  /** Inside the write transaction: moves a started record to its terminal status; a terminal one is returned as is. */
  #finish(key: string, outcome: ExecutionOutcome): ExecutionRecord {
    const record = this.#read(key)
    if (record === undefined) throw new NotFoundError(`[spindle/store-sqlite] Execution "${key}" was never started; call start before finish`)
    if (record.status !== 'started') return record
    record.status = outcome.status
    if (outcome.result !== undefined) record.result = outcome.result
    if (outcome.error !== undefined) record.error = outcome.error
    record.finishedAt = Date.now()
    this.#write(record)
    return record
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

  #write(record: ExecutionRecord): void {
    this.#sql.get('UPDATE executions SET status = ?, record = ? WHERE key = ?').run(record.status, toJsonText(record), record.key)
  }
}
