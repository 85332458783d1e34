// The small SQL surface the stores run on: a pg Pool here, or any driver speaking PostgreSQL (PGlite in tests).
import type pg from 'pg'

export interface SqlResult<R> {
  rows: R[]
  rowCount?: number | null
}

/** Runs one statement with `$1…` parameters. */
export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<SqlResult<R>>
}

/** An executor that can also run a callback inside one transaction (committed on success, rolled back on error). */
export interface SqlDatabase extends SqlExecutor {
  transaction<T>(callback: (transaction: SqlExecutor) => Promise<T>): Promise<T>
}

/** Wraps a pg Pool: each transaction checks out one client, and gives it back (destroyed if its connection broke). */
export function poolDatabase(pool: pg.Pool): SqlDatabase {
  return {
    query: async <R>(text: string, values?: unknown[]) => {
      const result = await pool.query(text, values as unknown[])
      return { rows: result.rows as R[], rowCount: result.rowCount }
    },
    async transaction<T>(callback: (transaction: SqlExecutor) => Promise<T>): Promise<T> {
      const client = await pool.connect()
      let broken: Error | undefined
      try {
        await client.query('BEGIN')
        const executor: SqlExecutor = {
          query: async <R>(text: string, values?: unknown[]) => {
            const result = await client.query(text, values as unknown[])
            return { rows: result.rows as R[], rowCount: result.rowCount }
          },
        }
        const value = await callback(executor)
        await client.query('COMMIT')
        return value
      } catch (error) {
        try {
          await client.query('ROLLBACK')
        } catch (rollbackError) {
          broken = rollbackError as Error
        }
        throw error
      } finally {
        client.release(broken)
      }
    },
  }
}
