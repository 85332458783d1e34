// SQLite SnapshotStore: per-step run state keyed by (run_id, version); small, refers to the log by seq.
import type { JsonObject, RunSnapshot, SnapshotStore, StoreBatch, StoreWrite } from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'
import { withSqliteErrors } from './map-sqlite-error.js'
import { StatementCache } from './statement-cache.js'
import { assertKey, fromJsonText, toJsonText } from './sqlite-values.js'
import { type ApplyWrite, prepareWrite, runWrite } from './sqlite-write.js'
import { type GroupCommit, groupCommitOf } from './group-commit.js'

interface SnapshotRow {
  run_id: string
  version: number
  session_id: string
  state: string
  created_at: number
}

/**
 * Run snapshots in SQLite. Saving the same `(runId, version)` again replaces it.
 *
 * @example
 * const snapshots = new SqliteSnapshotStore(database)
 * await snapshots.save({ runId: 'run', sessionId: 's', version: 1, state: { step: 1 }, createdAt: Date.now() })
 */
export class SqliteSnapshotStore implements SnapshotStore {
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

  async save(snapshot: RunSnapshot): Promise<void> {
    await runWrite(this.#group, this, { type: 'snapshot.save', snapshot })
  }

  /** Checks and serializes a snapshot (one write of a batch, or `save` itself); returns the function that writes it. */
  [prepareWrite](write: StoreWrite): ApplyWrite {
    if (write.type !== 'snapshot.save') throw new TypeError(`[spindle/store-sqlite] the snapshot store cannot apply "${write.type}"`)
    const { snapshot } = write
    assertKey(snapshot.runId, 'Snapshot runId')
    assertKey(snapshot.sessionId, 'Snapshot sessionId')
    const state = toJsonText(snapshot.state)
    return () => {
      this.#sql
        .get(
          `INSERT INTO snapshots (run_id, version, session_id, state, created_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (run_id, version) DO UPDATE SET session_id = excluded.session_id, state = excluded.state, created_at = excluded.created_at`,
        )
        .run(snapshot.runId, snapshot.version, snapshot.sessionId, state, snapshot.createdAt)
      return undefined
    }
  }

  async latest(runId: string): Promise<RunSnapshot | undefined> {
    return withSqliteErrors(`read the latest snapshot of run "${runId}"`, () => {
      const row = this.#sql.get('SELECT * FROM snapshots WHERE run_id = ? ORDER BY version DESC LIMIT 1').get(runId) as SnapshotRow | undefined
      return row === undefined ? undefined : toSnapshot(row)
    })
  }

  async get(runId: string, version: number): Promise<RunSnapshot | undefined> {
    return withSqliteErrors(`read snapshot ${version} of run "${runId}"`, () => {
      const row = this.#sql.get('SELECT * FROM snapshots WHERE run_id = ? AND version = ?').get(runId, version) as SnapshotRow | undefined
      return row === undefined ? undefined : toSnapshot(row)
    })
  }

  async list(runId: string): Promise<RunSnapshot[]> {
    return withSqliteErrors(`list snapshots of run "${runId}"`, () =>
      (this.#sql.get('SELECT * FROM snapshots WHERE run_id = ? ORDER BY version ASC').all(runId) as SnapshotRow[]).map(toSnapshot),
    )
  }

  async deleteRun(runId: string): Promise<void> {
    this.#group.flush()
    withSqliteErrors(`delete snapshots of run "${runId}"`, () => {
      this.#sql.get('DELETE FROM snapshots WHERE run_id = ?').run(runId)
    })
  }
}

function toSnapshot(row: SnapshotRow): RunSnapshot {
  return {
    runId: row.run_id,
    sessionId: row.session_id,
    version: row.version,
    state: fromJsonText<JsonObject>(row.state),
    createdAt: row.created_at,
  }
}
