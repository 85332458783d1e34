// A SqlDatabase over PGlite (PostgreSQL in WebAssembly) with its pgvector extension, for the pgvector SQL path.
import { PGlite, type Transaction } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite/vector'
import type { SqlDatabase, SqlExecutor } from '../sql-database.js'

export async function openPgliteWithVector(): Promise<{ database: SqlDatabase; close(): Promise<void> }> {
  const db = await PGlite.create({ extensions: { vector } })
  const wrap = (target: PGlite | Transaction): SqlExecutor => ({
    query: async <R>(text: string, values?: unknown[]) => {
      const result = await target.query<R>(text, values as unknown[])
      return { rows: result.rows, rowCount: result.affectedRows ?? null }
    },
  })
  return {
    database: { ...wrap(db), transaction: (callback) => db.transaction((transaction) => callback(wrap(transaction))) },
    close: () => db.close(),
  }
}
