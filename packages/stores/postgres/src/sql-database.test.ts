// poolDatabase on the real server: a client that fails as it is checked out is heard (never an unhandled 'error'
// event that ends the process), and the transaction runs again on a fresh connection; a pipelined transaction
// sends its statements together, and runs again when its backend is terminated before COMMIT.
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { poolDatabase } from './sql-database.js'
import { databaseUrl, describePostgres } from './test-support/postgres-test-database.js'
import { recordWire } from './test-support/wire-timeline.js'

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

  it('a pipelined transaction writes every statement before the first reply, and its client leaves pipeline mode', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 })
    pools.push(pool)
    const timeline = recordWire(pool)
    const database = poolDatabase(pool)
    const result = await database.transaction(
      async (transaction) => {
        expect(transaction.pipelined).toBe(true)
        const slow = transaction.query<{ a: number }>('SELECT $1::int AS a, pg_sleep(0.05)', [1]).then((value) => (timeline.push('reply a'), value))
        const fast = transaction.query<{ b: number }>('SELECT $1::int AS b', [2]).then((value) => (timeline.push('reply b'), value))
        const [first, second] = await Promise.all([slow, fast])
        return [first.rows[0]!.a, second.rows[0]!.b]
      },
      { pipeline: true },
    )
    expect(result).toEqual([1, 2])
    // BEGIN, then both statements on the wire before any reply; COMMIT only after the replies.
    expect(timeline).toEqual(['BEGIN', 'statement', 'statement', 'reply a', 'reply b', 'COMMIT'])
    const client = await pool.connect()
    try {
      expect((client as unknown as { pipeline: boolean }).pipeline).toBe(false)
      expect(client.getTransactionStatus()).toBe('I')
    } finally {
      client.release()
    }
    timeline.length = 0
    const plain = await database.transaction(async (transaction) => {
      const replies = await Promise.all([transaction.query('SELECT 1'), transaction.query('SELECT 2')])
      return [transaction.pipelined, replies.length]
    })
    expect(plain, 'without the option, the executor is not pipelined').toEqual([undefined, 2])
  })

  it('a pool configured with pipeline mode keeps it: its transactions pipeline, its clients stay pipelined', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, pipeline: true })
    pools.push(pool)
    const database = poolDatabase(pool)
    const [pipelined, rows] = await database.transaction(
      async (transaction) => [
        transaction.pipelined,
        (await Promise.all([transaction.query('SELECT $1::int AS n', [1]), transaction.query('SELECT $1::int AS n', [2])])).map((result) => result.rows[0]),
      ],
      { pipeline: true },
    )
    expect([pipelined, rows]).toEqual([true, [{ n: 1 }, { n: 2 }]])
    const client = await pool.connect()
    try {
      expect((client as unknown as { pipeline: boolean }).pipeline).toBe(true)
    } finally {
      client.release()
    }
  })

  it('a pipelined transaction whose backend is terminated before COMMIT runs again and commits once', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
    pools.push(pool)
    pool.on('error', () => {})
    const admin = new pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    const table = `pipeline_retry_${process.pid}_${Date.now()}`
    try {
      await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY)`)
      const database = poolDatabase(pool)
      let attempts = 0
      const done = database.transaction(
        async (transaction) => {
          attempts++
          // Terminated while it sleeps, with the INSERT and the SELECT already written behind it.
          const statements = [
            transaction.query(`SELECT pg_sleep(${attempts === 1 ? 5 : 0})`),
            transaction.query(`INSERT INTO ${table} (id) VALUES (1)`),
            transaction.query<{ count: string }>(`SELECT count(*) FROM ${table}`),
          ]
          const settled = await Promise.allSettled(statements)
          const failure = settled.find((outcome) => outcome.status === 'rejected')
          if (failure) throw failure.reason
          return Number((settled[2] as PromiseFulfilledResult<{ rows: Array<{ count: string }> }>).value.rows[0]!.count)
        },
        { pipeline: true },
      )
      for (let waited = 0; ; waited += 10) {
        const { rowCount } = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(5)' AND state = 'active'`)
        if (rowCount) break
        if (waited > 4_000) throw new Error('the pipelined statement never started')
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      expect(await done).toBe(1)
      expect(attempts).toBe(2)
      const { rows } = await admin.query<{ count: string }>(`SELECT count(*) FROM ${table}`)
      expect(Number(rows[0]!.count), 'the first attempt was rolled back').toBe(1)
    } finally {
      await admin.query(`DROP TABLE IF EXISTS ${table}`)
      await admin.end()
    }
  })
})
