// postgresStores(): the six stores on one pg Pool, usable as a `Stores` bundle and as a plugin that migrates on setup.
import { ConfigurationError, type Extensions, type Plugin, type Stores } from '@spindle/core'
import pg from 'pg'
import { runMigrations } from './migrations.js'
import { PostgresArtifactStore } from './postgres-artifact-store.js'
import { PostgresEmbeddingStore } from './postgres-embedding-store.js'
import { PostgresExecutionStore } from './postgres-execution-store.js'
import { PostgresRunStore } from './postgres-run-store.js'
import { PostgresSessionStore } from './postgres-session-store.js'
import { PostgresSnapshotStore } from './postgres-snapshot-store.js'
import { PostgresStoreBatch } from './postgres-store-batch.js'
import { type PgvectorSupport, setupPgvector, type VectorSearchMode } from './pgvector.js'
import { quoteSchema } from './schema-name.js'
import { poolDatabase, type SqlDatabase } from './sql-database.js'

/** Options of `postgresStores()`: a connection string or your pool, the schema, vector search and the artifact chunk size. */
export interface PostgresStoresOptions {
  /** A connection string; a pool is created and ended by `close()`. Defaults to `DATABASE_URL` when neither this nor `pool` is given. */
  connectionString?: string
  /** Your own pool: used as is and never ended by `close()`. */
  pool?: pg.Pool
  /** The schema holding Spindle's tables (created by `migrate()`); default `spindle`. */
  schema?: string
  /** Vector search: `auto` (pgvector when available, otherwise an exact scan), `pgvector` (required) or `exact`. */
  vectorSearch?: VectorSearchMode
  /** Size of the `bytea` chunks new artifacts are cut into (default 256 KiB). */
  artifactChunkSize?: number
  /**
   * Prepare the run loop's batch statements once per connection, under a name (default true): the server then
   * parses and plans each shape once. Set false behind a connection pooler that does not keep named statements
   * (PgBouncer before 1.21 in transaction mode, or without `max_prepared_statements`).
   */
  preparedStatements?: boolean
}

/** The six PostgreSQL stores, also a plugin: `extensions.use(stores)` migrates the schema and sets them; `close()` ends the pool it created. */
export interface PostgresStores extends Stores, Plugin {
  readonly name: 'store-postgres'
  readonly schema: string
  /** The pool the stores run on (yours, or the one created from the connection string). */
  readonly pool: pg.Pool
  /** Applies pending migrations (once across processes) and detects pgvector; idempotent. */
  migrate(): Promise<void>
  /** True when embeddings are searched with pgvector (known after `migrate()`). */
  readonly usesPgvector: boolean
  /** Ends the pool if these stores created it. */
  close(): Promise<void>
}

/**
 * The six Spindle stores on PostgreSQL.
 *
 * @example
 * const stores = postgresStores({ connectionString: process.env.DATABASE_URL })
 * const extensions = new Extensions().use(stores) // migrates, then sets the stores
 * await extensions.ready()
 */
export function postgresStores(options: PostgresStoresOptions = {}): PostgresStores {
  if (options.pool !== undefined && options.connectionString !== undefined) {
    throw new ConfigurationError('[spindle/store-postgres] pass either `pool` or `connectionString`, not both')
  }
  const ownsPool = options.pool === undefined
  const connectionString = options.connectionString ?? process.env.DATABASE_URL
  if (ownsPool && connectionString === undefined) {
    throw new ConfigurationError('[spindle/store-postgres] no database: pass `connectionString` or `pool`, or set DATABASE_URL')
  }
  const pool = options.pool ?? new pg.Pool({ connectionString })
  if (ownsPool) pool.on('error', () => {}) // an idle client's broken connection must not crash the process; the next query reconnects
  return createPostgresStores(poolDatabase(pool), { ...options, pool, ownsPool })
}

/** @internal The stores over any `SqlDatabase` (PGlite in the pgvector tests). */
export function createPostgresStores(
  database: SqlDatabase,
  options: Omit<PostgresStoresOptions, 'pool' | 'connectionString'> & { pool?: pg.Pool; ownsPool: boolean },
): PostgresStores {
  const schemaName = options.schema ?? 'spindle'
  const schema = quoteSchema(schemaName)
  let pgvector: PgvectorSupport | undefined
  let migrated: Promise<void> | undefined
  let closed = false
  const artifacts = new PostgresArtifactStore(database, schema, { chunkSize: options.artifactChunkSize })
  const migrate = (): Promise<void> => {
    migrated ??= (async () => {
      await runMigrations(database, schemaName)
      pgvector = await setupPgvector(database, schema, schemaName, options.vectorSearch ?? 'auto')
      // Chunks of puts whose process was killed a day ago or more (a cheap search of a small table).
      await artifacts.removeStaleUploads()
    })().catch((error: unknown) => {
      migrated = undefined
      throw error
    })
    return migrated
  }
  const sessions = new PostgresSessionStore(database, schema)
  const runs = new PostgresRunStore(database, schema)
  const executions = new PostgresExecutionStore(database, schema)
  const snapshots = new PostgresSnapshotStore(database, schema)
  // One batch for the four stores: the kernel commits a step's writes in one transaction.
  const batch = new PostgresStoreBatch(database, schema, { sessions, runs, executions, snapshots }, { preparedStatements: options.preparedStatements })
  sessions.batch = runs.batch = executions.batch = snapshots.batch = batch
  const stores: PostgresStores = {
    name: 'store-postgres',
    schema: schemaName,
    // Only the PGlite-backed tests build stores without a pool.
    pool: options.pool as pg.Pool,
    sessions,
    runs,
    executions,
    snapshots,
    embeddings: new PostgresEmbeddingStore(database, schema, schemaName, () => pgvector),
    artifacts,
    get usesPgvector() {
      return pgvector !== undefined
    },
    migrate,
    async setup(extensions: Extensions) {
      await migrate()
      const { sessions, runs, executions, snapshots, embeddings, artifacts } = stores
      extensions.setStores({ sessions, runs, executions, snapshots, embeddings, artifacts })
    },
    async dispose() {
      await stores.close()
    },
    async close() {
      if (closed) return
      closed = true
      if (options.ownsPool) await options.pool?.end()
    },
  }
  return stores
}
