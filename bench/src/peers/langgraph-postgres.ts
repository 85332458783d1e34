// LangGraph.js on PostgreSQL: `PostgresSaver` from `@langchain/langgraph-checkpoint-postgres` in a schema of its
// own, on the same server as Spindle's stores; the workload is `langgraphDurable` (the SqliteSaver peer's).
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres'

/** What the bench uses of the saver's pg Pool (the bench has no `pg` dependency of its own). */
export interface SaverPool {
  query(text: string): Promise<unknown>
  on(event: 'connect', listener: (client: unknown) => void): unknown
  end(): Promise<void>
}

/** A PostgresSaver on its own pool and schema (created by `setup()`); `close()` drops the schema and ends the pool. */
export interface LanggraphPostgres {
  checkpointer: PostgresSaver
  pool: SaverPool
  close(): Promise<void>
}

/**
 * A saver on `connectionString` (its `options` parameter may set `synchronous_commit`), in `schema`; `onPool` sees
 * its pool before the first connection (to count round trips).
 */
export async function langgraphPostgres(connectionString: string, schema: string, onPool?: (pool: SaverPool) => void): Promise<LanggraphPostgres> {
  const checkpointer = PostgresSaver.fromConnString(connectionString, { schema })
  // The saver keeps its pool private; the bench counts its round trips and drops its schema through it.
  const pool = (checkpointer as unknown as { pool: SaverPool }).pool
  onPool?.(pool)
  try {
    await checkpointer.setup()
  } catch (error) {
    await pool.end().catch(() => {})
    throw error
  }
  return {
    checkpointer,
    pool,
    async close() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {})
      await pool.end()
    },
  }
}
