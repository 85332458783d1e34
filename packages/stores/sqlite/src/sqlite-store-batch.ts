// The SQLite StoreBatch: a step's writes to the sessions, runs, executions and snapshots stores committed in one
// BEGIN IMMEDIATE transaction (one commit, one fsync at most), each applied by its store's own code; the batches
// of concurrent runs submitted in one loop turn share that transaction (group-commit.ts); a failing write rolls back alone.
import { StoreError, type BatchedStores, type StoreBatch, type StoreWrite, type StoreWriteResult } from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'
import { groupCommitOf, type GroupCommit } from './group-commit.js'
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
  /** The connection's group commit: a batch is one write of the loop turn's transaction (its own when alone). */
  readonly #group: GroupCommit

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
    this.#group = groupCommitOf(database)
  }

  async write(writes: readonly StoreWrite[]): Promise<StoreWriteResult[]> {
    if (writes.length === 0) return []
    const applies: ApplyWrite[] = []
    for (let preparing = 0; preparing < writes.length; preparing++) {
      const write = writes[preparing]!
      try {
        const target = this.#targets[write.type] as BatchableSqliteStore | undefined
        if (target === undefined) {
          throw new StoreError(
            `[spindle/store-sqlite] Unknown batch write "${(write as { type: unknown }).type}"; this version writes ${Object.keys(this.#targets).join(', ')}: upgrade @spindle/store-sqlite`,
          )
        }
        applies.push(target[prepareWrite](write))
      } catch (error) {
        throw mapSqliteError(error, `${describeWrite(write)} (write ${preparing + 1} of ${writes.length} in a batch; none of them was written)`)
      }
    }
    // The write being applied, so that an error names it (-1 outside the loop: BEGIN or COMMIT failed).
    const progress = { applying: -1 }
    try {
      // Synchronous from its first statement to its last: no other call on this connection can interleave.
      return await this.#group.submit(() => applyAll(applies, progress))
    } catch (error) {
      const failing = progress.applying
      throw mapSqliteError(
        error,
        failing >= 0
          ? `${describeWrite(writes[failing]!)} (write ${failing + 1} of ${writes.length} in a batch; none of them was written)`
          : `commit a batch of ${writes.length} writes (none of them was written)`,
      )
    }
  }
}

/** Applies a batch's prepared writes in order (inside its transaction), `progress` naming the current one. */
function applyAll(applies: readonly ApplyWrite[], progress: { applying: number }): StoreWriteResult[] {
  const results: StoreWriteResult[] = []
  for (let index = 0; index < applies.length; index++) {
    progress.applying = index
    results.push(applies[index]!())
  }
  progress.applying = -1
  return results
}
