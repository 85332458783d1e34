// Detects (and, when allowed, installs) pgvector, and adds the `vector` column beside the portable `float8[]` one.
import { ConfigurationError } from '@spindle/core'
import type { SqlDatabase } from './sql-database.js'

/** Qualified names of pgvector's type, cosine-distance operator and HNSW operator class. */
export interface PgvectorSupport {
  schema: string
  type: string
  cosineDistance: string
  cosineOps: string
}

/** `auto`: use pgvector when it is (or can be) installed; `pgvector`: require it; `exact`: never use it. */
export type VectorSearchMode = 'auto' | 'pgvector' | 'exact'

/**
 * Runs after the versioned migrations. Tries `CREATE EXTENSION IF NOT EXISTS vector` (inside a savepoint, so
 * a missing extension or a missing privilege falls back to the exact scan), then adds and back-fills the column.
 */
export async function setupPgvector(database: SqlDatabase, schema: string, schemaName: string, mode: VectorSearchMode): Promise<PgvectorSupport | undefined> {
  if (mode === 'exact') return undefined
  const support = await database.transaction(async (transaction) => {
    await transaction.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`spindle:migrate:${schemaName}`])
    let found = await findExtension(transaction)
    if (found === undefined) {
      const { rows } = await transaction.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)
      if (rows.length > 0) {
        await transaction.query('SAVEPOINT spindle_pgvector')
        try {
          await transaction.query('CREATE EXTENSION IF NOT EXISTS vector')
          await transaction.query('RELEASE SAVEPOINT spindle_pgvector')
        } catch {
          await transaction.query('ROLLBACK TO SAVEPOINT spindle_pgvector')
        }
        found = await findExtension(transaction)
      }
    }
    if (found === undefined) return undefined
    const extension = `"${found.replaceAll('"', '""')}"`
    const support: PgvectorSupport = {
      schema: found,
      type: `${extension}.vector`,
      cosineDistance: `OPERATOR(${extension}.<=>)`,
      cosineOps: `${extension}.vector_cosine_ops`,
    }
    await transaction.query(`ALTER TABLE ${schema}.embeddings ADD COLUMN IF NOT EXISTS embedding ${support.type}`)
    await transaction.query(`UPDATE ${schema}.embeddings SET embedding = vector::${support.type} WHERE embedding IS NULL`)
    return support
  })
  if (support === undefined && mode === 'pgvector') {
    throw new ConfigurationError(
      `[spindle/store-postgres] vectorSearch: 'pgvector' was requested but the "vector" extension is not installed and could not be created; install pgvector on the server (or run CREATE EXTENSION vector as a superuser), or use vectorSearch: 'auto'`,
    )
  }
  return support
}

async function findExtension(executor: Pick<SqlDatabase, 'query'>): Promise<string | undefined> {
  const { rows } = await executor.query<{ schema: string }>(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
  )
  return rows[0]?.schema
}
