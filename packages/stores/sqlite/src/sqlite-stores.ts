// sqliteStores(): the six stores on one SQLite database, usable as a `Stores` bundle and as a plugin.
import { ConfigurationError, type Extensions, type Plugin, type Stores } from '@spindle/core'
import { resolve } from 'node:path'
import type BetterSqlite3 from 'better-sqlite3'
import { checkpointInBackground, type CheckpointStatus, fallbackAutocheckpointFrames } from './background-checkpointer.js'
import { groupCommitOf } from './group-commit.js'
import { mapSqliteError } from './map-sqlite-error.js'
import { migrateDatabase } from './migrations.js'
import { configureDatabase, openDatabase } from './open-database.js'
import { SqliteArtifactStore } from './sqlite-artifact-store.js'
import { SqliteEmbeddingStore } from './sqlite-embedding-store.js'
import { SqliteExecutionStore } from './sqlite-execution-store.js'
import { SqliteRunStore } from './sqlite-run-store.js'
import { SqliteSessionStore } from './sqlite-session-store.js'
import { SqliteSnapshotStore } from './sqlite-snapshot-store.js'
import { SqliteStoreBatch } from './sqlite-store-batch.js'
import type { VectorSearchMode } from './vector-search.js'

/** Options of `sqliteStores()`: the file (or `:memory:`, or your open database), read-only mode, busy timeout, vector search and checkpoint mode. */
export interface SqliteStoresOptions {
  /** The database file (created when missing), or `:memory:`. Required unless `database` is given. */
  path?: string
  /**
   * An open better-sqlite3 connection to use instead of opening `path`. It is migrated, and configured
   * (WAL, busy_timeout, synchronous, foreign_keys) only when `configure` is true; `close()` leaves it open.
   */
  database?: BetterSqlite3.Database
  /** Open read-only: reads work, writes fail with a `StoreError`; the schema must be current already. */
  readonly?: boolean
  /** How long a write waits for another connection's lock. Default 5000 ms. */
  busyTimeoutMs?: number
  /** Apply this package's pragmas to an injected `database`. Default false. */
  configure?: boolean
  /** `auto` (default): rank vectors with sqlite-vec when it loads, else with the exact JavaScript scorer. */
  vectorSearch?: 'auto' | VectorSearchMode
  /**
   * Who copies the WAL back into the database file. `inline` (default): SQLite's own automatic checkpoint, in
   * the committing call, every 1,000 frames (a few milliseconds, about every 70 durable steps). `background`
   * (file databases only): a worker thread shared by the process, every 50 ms; the connection still
   * checkpoints by itself past 4,000 frames should the worker fall behind or stop. Measured on back-to-back
   * durable steps: p90 halves (about 300 vs 620 µs per step), the mean drops 7-10 %, but the slowest 1 % get
   * slower (about 1.7 vs 0.7 ms): a commit that meets the worker on one of the WAL's locks waits in SQLite's
   * busy handler, which sleeps at least 1 ms. Worth it when steps come in bursts with pauses (model latency).
   */
  checkpoint?: 'background' | 'inline'
}

/** Unregisters the background checkpoints of stores that were garbage-collected without close(). */
const unclosed = new FinalizationRegistry<() => void>((stop) => stop())

/**
 * The six stores over one SQLite connection. It is both a `Stores` bundle and a `Plugin`. The sessions, runs,
 * executions and snapshots stores share one `SqliteStoreBatch` as `batch` (atomic multi-store writes):
 * `extensions.use(stores)` installs it, and `extensions.dispose()` (or `close()`) closes the database.
 */
export class SqliteStores implements Stores, Plugin {
  readonly sessions: SqliteSessionStore
  readonly runs: SqliteRunStore
  readonly executions: SqliteExecutionStore
  readonly snapshots: SqliteSnapshotStore
  readonly embeddings: SqliteEmbeddingStore
  readonly artifacts: SqliteArtifactStore
  readonly #database: BetterSqlite3.Database
  readonly #ownsDatabase: boolean
  #checkpoints: { status: CheckpointStatus; stop: () => void } | undefined

  constructor(
    database: BetterSqlite3.Database,
    options: { ownsDatabase: boolean; vectorSearch?: 'auto' | VectorSearchMode; checkpoint?: 'background' | 'inline' },
  ) {
    this.#database = database
    this.#ownsDatabase = options.ownsDatabase
    this.sessions = new SqliteSessionStore(database)
    this.runs = new SqliteRunStore(database)
    this.executions = new SqliteExecutionStore(database)
    this.snapshots = new SqliteSnapshotStore(database)
    this.embeddings = new SqliteEmbeddingStore(database, { vectorSearch: options.vectorSearch ?? 'auto' })
    this.artifacts = new SqliteArtifactStore(database)
    // One batch for the four stores of this connection: the kernel commits a step's writes in one transaction.
    const batch = new SqliteStoreBatch(database, this)
    this.sessions.batch = this.runs.batch = this.executions.batch = this.snapshots.batch = batch
    if (options.checkpoint === 'background' && !database.memory && !database.readonly) {
      const inlineFrames = database.pragma('wal_autocheckpoint', { simple: true }) as number
      database.pragma(`wal_autocheckpoint = ${fallbackAutocheckpointFrames}`)
      const checkpoints = checkpointInBackground(resolve(database.name), () => {
        // The worker gave this database up: SQLite's own checkpoint, in the committing call, again.
        if (database.open) database.pragma(`wal_autocheckpoint = ${inlineFrames}`)
      })
      this.#checkpoints = checkpoints
      unclosed.register(this, checkpoints.stop, this)
    }
  }

  /**
   * The background checkpoints of this database: how many the worker ran, and the WAL frames of the last one
   * (`undefined` when checkpoints are inline).
   */
  get checkpointStatus(): Readonly<CheckpointStatus> | undefined {
    return this.#checkpoints?.status
  }

  // Getters, not fields: the own enumerable properties are exactly the six stores, so the object can also be
  // handed to `extensions.setStores(stores)` directly.
  get name(): string {
    return 'store-sqlite'
  }

  /** The underlying connection, for backups (`database.backup(file)`) and inspection. */
  get database(): BetterSqlite3.Database {
    return this.#database
  }

  setup(extensions: Extensions): void {
    extensions.setStores({
      sessions: this.sessions,
      runs: this.runs,
      executions: this.executions,
      snapshots: this.snapshots,
      embeddings: this.embeddings,
      artifacts: this.artifacts,
    })
  }

  dispose(): void {
    this.close()
  }

  /** Closes the database this object opened (idempotent). An injected `database` stays open. */
  close(): void {
    // Writes submitted and not yet committed (the loop turn's group) are committed first.
    if (this.#database.open) groupCommitOf(this.#database).flush()
    if (this.#checkpoints) {
      this.#checkpoints.stop()
      unclosed.unregister(this)
      this.#checkpoints = undefined
    }
    if (this.#ownsDatabase && this.#database.open) this.#database.close()
  }
}

/**
 * Opens (or creates) a SQLite database, migrates it, and returns the six durable stores on it.
 *
 * @example
 * const stores = sqliteStores({ path: './spindle.db' })
 * const extensions = new Extensions()
 * await extensions.use(stores) // or: extensions.setStores(stores)
 * // …
 * await extensions.dispose() // closes the database
 */
export function sqliteStores(options: SqliteStoresOptions): SqliteStores {
  if (options.database === undefined && (typeof options.path !== 'string' || options.path === '')) {
    throw new ConfigurationError("[spindle/store-sqlite] sqliteStores needs `path` (a file, or ':memory:') or an open better-sqlite3 `database`")
  }
  const ownsDatabase = options.database === undefined
  const database = options.database ?? openDatabase(options.path!, { readonly: options.readonly, busyTimeoutMs: options.busyTimeoutMs })
  const where = JSON.stringify(options.path ?? database.name)
  try {
    if (!ownsDatabase && options.configure) configureDatabase(database, { readonly: database.readonly, busyTimeoutMs: options.busyTimeoutMs })
    migrateDatabase(database, where, { readonly: database.readonly })
    return new SqliteStores(database, { ownsDatabase, vectorSearch: options.vectorSearch, checkpoint: options.checkpoint ?? 'inline' })
  } catch (error) {
    if (ownsDatabase) database.close()
    throw mapSqliteError(error, `open the stores on ${where}`)
  }
}
