// The SQLite StoreBatch: a step's writes to the sessions, runs, executions and snapshots stores committed in one
// BEGIN IMMEDIATE transaction (one commit, one fsync at most), each applied by its store's own code.
import { StoreError, type BatchedStores, type StoreBatch, type StoreWrite, type StoreWriteResult } from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'
import { mapSqliteError } from './map-sqlite-error.js'
import type { SqliteExecutionStore } from './sqlite-execution-store.js'
import type { SqliteRunStore } from './sqlite-run-store.js'
import type { SqliteSessionStore } from './sqlite-session-store.js'
import type { SqliteSnapshotStore } from './sqlite-snapshot-store.js'
import { type ApplyWrite, type BatchableSqliteStore, describeWrite, prepareWrite } from './sqlite-write.js'

/** The four SQLite stores a `SqliteStoreBatch` writes to in one transaction (`batch.stores`). */
export interface SqliteBatchedStores {
  sessions: SqliteSessionStore
  runs: SqliteRunStore
  executions: SqliteExecutionStore
  snapshots: SqliteSnapshotStore
}

/**
 * Writes to four SQLite stores on one connection, all or nothing. Every value is checked and serialized before
 * the write lock is taken; a failing write rolls the whole batch back and rejects with that write's own error.
 * `sqliteStores()` creates one and exposes it as `batch` on its four stores.
 *
 * @example
 * const stores = sqliteStores({ path: './spindle.db' })
 * await stores.sessions.batch!.write([
 *   { type: 'session.append', sessionId: 's', entries: [{ kind: 'message', message: { role: 'user', content: 'hi' } }] },
 *   { type: 'snapshot.save', snapshot: { runId: 'r', sessionId: 's', version: 1, state: {}, createdAt: Date.now() } },
 * ])
 */
export class SqliteStoreBatch implements StoreBatch {
  readonly specificationVersion = 'v1' as const
  readonly stores: BatchedStores
  readonly #targets: Record<StoreWrite['type'], BatchableSqliteStore>
  readonly #transaction: BetterSqlite3.Transaction<(applies: ApplyWrite[]) => StoreWriteResult[]>
  /** The write being applied, so that an error names it (-1 outside the loop: BEGIN or COMMIT failed). */
  #applying = -1

  /** `stores` must all be open on `database`: the batch's transaction is that connection's. */
  constructor(database: BetterSqlite3.Database, stores: SqliteBatchedStores) {
    this.stores = Object.freeze({ sessions: stores.sessions, runs: stores.runs, executions: stores.executions, snapshots: stores.snapshots })
    this.#targets = {
      'session.append': stores.sessions,
      'execution.start': stores.executions,
      'execution.finish': stores.executions,
      'run.events': stores.runs,
      'run.update': stores.runs,
      'snapshot.save': stores.snapshots,
    }
    // Created once: better-sqlite3 builds several functions per transaction() call.
    this.#transaction = database.transaction((applies: ApplyWrite[]) => {
      const results: StoreWriteResult[] = []
      for (let index = 0; index < applies.length; index++) {
        this.#applying = index
        results.push(applies[index]!())
      }
      this.#applying = -1
      return results
    })
  }

  async write(writes: readonly StoreWrite[]): Promise<StoreWriteResult[]> {
    if (writes.length === 0) return []
    let preparing = 0
    this.#applying = -1
    try {
      const applies: ApplyWrite[] = []
      for (; preparing < writes.length; preparing++) {
        const write = writes[preparing]!
        const target = this.#targets[write.type] as BatchableSqliteStore | undefined
        if (target === undefined) {
          throw new StoreError(
            `[spindle/store-sqlite] Unknown batch write "${(write as { type: unknown }).type}"; this version writes ${Object.keys(this.#targets).join(', ')}: upgrade @spindle/store-sqlite`,
          )
        }
        applies.push(target[prepareWrite](write))
      }
      preparing = -1
      // Synchronous from here to the commit: no other call on this connection can interleave.
      return this.#transaction.immediate(applies)
    } catch (error) {
      const failing = preparing >= 0 ? preparing : this.#applying
      this.#applying = -1
      throw mapSqliteError(
        error,
        failing >= 0
          ? `${describeWrite(writes[failing]!)} (write ${failing + 1} of ${writes.length} in a batch; none of them was written)`
          : `commit a batch of ${writes.length} writes (none of them was written)`,
      )
    }
  }
}
