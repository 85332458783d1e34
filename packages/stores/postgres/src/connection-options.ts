// Shared connection options of the gate and the bus: a pool the user passes, or one made from a connection string.
import { ConfigurationError } from '@spindle/core'
import pg from 'pg'

/** How a PostgreSQL part connects: a connection string or your pool, and the schema. */
export interface PostgresConnectionOptions {
  /** Your pool: used as is, never ended by `close()`. */
  pool?: pg.Pool
  /** A connection string; a pool is created and ended by `close()`. Defaults to `DATABASE_URL`. */
  connectionString?: string
  /** The schema holding Spindle's tables; default `spindle`. */
  schema?: string
}

export function resolvePool(options: PostgresConnectionOptions, plugin: string): { pool: pg.Pool; owned: boolean } {
  if (options.pool !== undefined && options.connectionString !== undefined) {
    throw new ConfigurationError(`[spindle/store-postgres] ${plugin}: pass either \`pool\` or \`connectionString\`, not both`)
  }
  if (options.pool !== undefined) return { pool: options.pool, owned: false }
  const connectionString = options.connectionString ?? process.env.DATABASE_URL
  if (connectionString === undefined) {
    throw new ConfigurationError(`[spindle/store-postgres] ${plugin}: no database; pass \`connectionString\` or \`pool\`, or set DATABASE_URL`)
  }
  const pool = new pg.Pool({ connectionString })
  pool.on('error', () => {})
  return { pool, owned: true }
}
