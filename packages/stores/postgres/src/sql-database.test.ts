// poolDatabase on the real server: a client that fails as it is checked out is heard (never an unhandled 'error'
// event that ends the process), and the transaction runs again on a fresh connection.
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { poolDatabase } from './sql-database.js'
import { databaseUrl, describePostgres } from './test-support/postgres-test-database.js'

const pools: pg.Pool[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()))
})

describePostgres('poolDatabase', () => {
  it('a connection that fails right after checkout (before any statement) is retried, not left without a listener', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
    pools.push(pool)
    pool.on('error', () => {})
    let failed = 0
    // The earliest a backend terminated as it connects can fail: once pg-pool has handed the client over, in the
    // same turn (a FATAL read in the packet after ReadyForQuery). A process.nextTick lands before any promise
    // continuation, so a listener attached after `await pool.connect()` would be too late.
    pool.on('acquire', (client) => {
      if (failed++ > 0) return
      process.nextTick(() => client.emit('error', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })))
    })
    const database = poolDatabase(pool)
    const { rows } = await database.transaction((transaction) => transaction.query<{ answer: number }>('SELECT 42 AS answer'))
    expect(rows[0]?.answer).toBe(42)
    expect(failed, 'a second checkout ran the transaction again').toBe(2)
  })
})
