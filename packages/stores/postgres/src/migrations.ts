// Versioned migrations for Spindle's tables in one schema, applied once under a transaction-scoped advisory lock.
import { StoreError } from '@spindle/core'
import { mapPostgresError } from './map-postgres-error.js'
import { quoteSchema } from './schema-name.js'
import type { SqlDatabase, SqlExecutor } from './sql-database.js'

export interface Migration {
  version: number
  name: string
  statements(schema: string): string[]
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'stores',
    statements: (s) => [
      `CREATE TABLE ${s}.sessions (
        id text PRIMARY KEY,
        resource_id text,
        title text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        last_seq bigint NOT NULL DEFAULT 0,
        fence bigint,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      )`,
      `CREATE INDEX sessions_updated_idx ON ${s}.sessions (updated_at DESC, id DESC)`,
      `CREATE INDEX sessions_resource_idx ON ${s}.sessions (resource_id, updated_at DESC, id DESC)`,
      `CREATE TABLE ${s}.session_entries (
        session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        kind text NOT NULL,
        body jsonb NOT NULL,
        run_id text,
        created_at bigint NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`,
      `CREATE TABLE ${s}.runs (
        id text PRIMARY KEY,
        session_id text NOT NULL,
        status text NOT NULL,
        step integer NOT NULL DEFAULT 0,
        finish_reason text,
        usage jsonb NOT NULL,
        error jsonb,
        idempotency_key text,
        request jsonb NOT NULL,
        lease_owner text,
        lease_expires_at bigint,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        started_at bigint,
        finished_at bigint
      )`,
      `CREATE UNIQUE INDEX runs_idempotency_idx ON ${s}.runs (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
      `CREATE INDEX runs_created_idx ON ${s}.runs (created_at DESC, id DESC)`,
      `CREATE INDEX runs_session_idx ON ${s}.runs (session_id, created_at DESC, id DESC)`,
      `CREATE INDEX runs_status_idx ON ${s}.runs (status, created_at DESC)`,
      `CREATE TABLE ${s}.run_events (
        run_id text NOT NULL,
        seq bigint NOT NULL,
        event jsonb NOT NULL,
        PRIMARY KEY (run_id, seq)
      )`,
      `CREATE TABLE ${s}.executions (
        key text PRIMARY KEY,
        ordinal bigserial NOT NULL,
        run_id text NOT NULL,
        step integer NOT NULL,
        call_id text NOT NULL,
        tool_name text NOT NULL,
        args jsonb,
        status text NOT NULL,
        result jsonb,
        error jsonb,
        attempt integer NOT NULL DEFAULT 1,
        started_at bigint NOT NULL,
        finished_at bigint
      )`,
      `CREATE INDEX executions_run_idx ON ${s}.executions (run_id, ordinal)`,
      `CREATE TABLE ${s}.snapshots (
        run_id text NOT NULL,
        version bigint NOT NULL,
        session_id text NOT NULL,
        state jsonb NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (run_id, version)
      )`,
      `CREATE TABLE ${s}.embeddings (
        id text PRIMARY KEY,
        namespace text,
        dimensions integer NOT NULL,
        vector float8[] NOT NULL,
        norm float8 NOT NULL,
        content text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb
      )`,
      `CREATE INDEX embeddings_namespace_idx ON ${s}.embeddings (namespace, dimensions)`,
      `CREATE INDEX embeddings_metadata_idx ON ${s}.embeddings USING gin (metadata jsonb_path_ops)`,
      `CREATE TABLE ${s}.artifacts (
        id text PRIMARY KEY,
        size bigint NOT NULL,
        chunk_size integer NOT NULL,
        media_type text NOT NULL,
        name text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at bigint NOT NULL
      )`,
      `CREATE INDEX artifacts_created_idx ON ${s}.artifacts (created_at DESC, id DESC)`,
      // Chunks are written under an upload id while streaming, then re-keyed to the content hash.
      `CREATE TABLE ${s}.artifact_chunks (
        blob_id text NOT NULL,
        index integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (blob_id, index)
      )`,
    ],
  },
  {
    version: 2,
    name: 'session-gate',
    statements: (s) => [
      `CREATE TABLE ${s}.gate_leases (
        session_id text PRIMARY KEY,
        holder text,
        lease_id text,
        token bigint NOT NULL DEFAULT 0,
        expires_at timestamptz
      )`,
      `CREATE TABLE ${s}.gate_waiters (
        ticket bigserial PRIMARY KEY,
        session_id text NOT NULL,
        owner text NOT NULL,
        expires_at timestamptz NOT NULL
      )`,
      `CREATE INDEX gate_waiters_session_idx ON ${s}.gate_waiters (session_id, ticket)`,
    ],
  },
  {
    version: 3,
    name: 'artifact-uploads',
    // The uploads in progress: a process killed in the middle of a put left its chunks behind for good. The
    // chunks of an upload whose row is older than a day are removed by migrate() (see PostgresArtifactStore).
    statements: (s) => [
      `CREATE TABLE ${s}.artifact_uploads (
        blob_id text PRIMARY KEY,
        started_at bigint NOT NULL
      )`,
    ],
  },
]

/**
 * The schema version this release of `@spindle/store-postgres` migrates to. A schema at a higher version (written by
 * a newer release) is refused by `runMigrations` with a `StoreError` rather than used.
 */
export const latestSchemaVersion = migrations[migrations.length - 1]!.version

/** A stable 64-bit-ish key for the advisory lock of one schema's migrations. */
function lockKey(schema: string): string {
  return `spindle:migrate:${schema}`
}

/**
 * Applies every pending migration in one transaction. Concurrent callers serialize on
 * `pg_advisory_xact_lock`, so the work happens once; a schema newer than this code is refused.
 */
export async function runMigrations(database: SqlDatabase, schema: string): Promise<{ applied: number[]; version: number }> {
  const s = quoteSchema(schema)
  try {
    return await database.transaction(async (transaction) => {
      await transaction.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey(schema)])
      await transaction.query(`CREATE SCHEMA IF NOT EXISTS ${s}`)
      await transaction.query(
        `CREATE TABLE IF NOT EXISTS ${s}.spindle_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      )
      const current = await currentVersion(transaction, s)
      if (current > latestSchemaVersion) {
        throw new StoreError(
          `[spindle/store-postgres] schema "${schema}" is at version ${current}, newer than this @spindle/store-postgres knows (${latestSchemaVersion}); upgrade @spindle/store-postgres in this process, or point it at another schema`,
          { details: { schema, current, known: latestSchemaVersion } },
        )
      }
      const applied: number[] = []
      for (const migration of migrations) {
        if (migration.version <= current) continue
        for (const statement of migration.statements(s)) await transaction.query(statement)
        await transaction.query(`INSERT INTO ${s}.spindle_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name])
        applied.push(migration.version)
      }
      return { applied, version: Math.max(current, latestSchemaVersion) }
    })
  } catch (error) {
    throw mapPostgresError(error, `migrating schema "${schema}"`)
  }
}

async function currentVersion(executor: SqlExecutor, quotedSchema: string): Promise<number> {
  const { rows } = await executor.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${quotedSchema}.spindle_migrations`)
  return Number(rows[0]?.version ?? 0)
}
