// The pg → Spindle error mapping, on errors the real server (and a refused connection) produce.
import { DuplicateError, NotFoundError, SpindleError, StaleFenceError, StoreError } from '@spindle/core'
import pg from 'pg'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { isRetryablePostgresError, mapPostgresError, sqlState } from './map-postgres-error.js'
import { databaseUrl, describePostgres } from './test-support/postgres-test-database.js'

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describePostgres('mapPostgresError against the real server', () => {
  let pool: pg.Pool
  beforeEach(() => {
    pool = new pg.Pool({ connectionString: databaseUrl })
    pool.on('error', () => {})
  })
  afterEach(async () => {
    await pool.end()
  })

  it('23505 unique violation → DuplicateError (not retryable)', async () => {
    const error = await caught(pool.query(`CREATE TEMP TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (1)`))
    expect(sqlState(error)).toBe('23505')
    const mapped = mapPostgresError(error, 'inserting')
    expect(mapped).toBeInstanceOf(DuplicateError)
    expect(mapped.isRetryable).toBe(false)
    expect(mapped.cause).toBe(error)
    expect(mapped.message).toMatch(/^\[spindle\/store-postgres\] inserting failed/)
  })

  it('23503 foreign key violation → NotFoundError', async () => {
    const client = await pool.connect()
    try {
      await client.query('CREATE TEMP TABLE p (id int PRIMARY KEY); CREATE TEMP TABLE c (p int REFERENCES p (id))')
      const error = await caught(client.query('INSERT INTO c VALUES (7)'))
      expect(mapPostgresError(error, 'linking')).toBeInstanceOf(NotFoundError)
    } finally {
      client.release()
    }
  })

  it('40P01 deadlock → retryable StoreError', async () => {
    const a = await pool.connect()
    const b = await pool.connect()
    try {
      const table = `deadlock_${process.pid}_${Date.now()}`
      await a.query(`CREATE TABLE public.${table} (id int PRIMARY KEY); INSERT INTO public.${table} VALUES (1), (2)`)
      try {
        await a.query('BEGIN')
        await b.query('BEGIN')
        await a.query(`UPDATE public.${table} SET id = id WHERE id = 1`)
        await b.query(`UPDATE public.${table} SET id = id WHERE id = 2`)
        const results = await Promise.allSettled([
          a.query(`UPDATE public.${table} SET id = id WHERE id = 2`),
          b.query(`UPDATE public.${table} SET id = id WHERE id = 1`),
        ])
        const failure = results.find((result) => result.status === 'rejected') as PromiseRejectedResult
        expect(sqlState(failure.reason)).toBe('40P01')
        const mapped = mapPostgresError(failure.reason, 'updating')
        expect(mapped).toBeInstanceOf(StoreError)
        expect(mapped.isRetryable).toBe(true)
        await a.query('ROLLBACK')
        await b.query('ROLLBACK')
      } finally {
        await a.query(`DROP TABLE public.${table}`)
      }
    } finally {
      a.release()
      b.release()
    }
  })

  it('40001 serialization failure → retryable StoreError', async () => {
    const a = await pool.connect()
    const b = await pool.connect()
    const table = `serial_${process.pid}_${Date.now()}`
    await a.query(`CREATE TABLE public.${table} (id int PRIMARY KEY, n int); INSERT INTO public.${table} VALUES (1, 0)`)
    try {
      await a.query('BEGIN ISOLATION LEVEL SERIALIZABLE')
      await b.query('BEGIN ISOLATION LEVEL SERIALIZABLE')
      await a.query(`SELECT n FROM public.${table} WHERE id = 1`)
      await b.query(`SELECT n FROM public.${table} WHERE id = 1`)
      await a.query(`UPDATE public.${table} SET n = n + 1 WHERE id = 1`)
      const pending = b.query(`UPDATE public.${table} SET n = n + 1 WHERE id = 1`)
      await a.query('COMMIT')
      const error = await caught(pending)
      expect(sqlState(error)).toBe('40001')
      expect(mapPostgresError(error, 'updating').isRetryable).toBe(true)
      await b.query('ROLLBACK')
    } finally {
      await a.query(`DROP TABLE public.${table}`)
      a.release()
      b.release()
    }
  })

  it('57P01 terminated backend (pg_terminate_backend) → retryable StoreError', async () => {
    const victim = new pg.Client({ connectionString: databaseUrl })
    victim.on('error', () => {})
    await victim.connect()
    const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
    const pending = caught(victim.query('SELECT pg_sleep(10)'))
    await new Promise((resolve) => setTimeout(resolve, 100))
    await pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid])
    const error = await pending
    const mapped = mapPostgresError(error, 'sleeping')
    expect(mapped.isRetryable).toBe(true)
    expect(isRetryablePostgresError(error)).toBe(true)
    await victim.end().catch(() => {})
  })

  it('42P01 missing table → StoreError that says to migrate', async () => {
    const error = await caught(pool.query('SELECT * FROM "spindle_missing_schema".sessions'))
    const mapped = mapPostgresError(error, 'reading')
    expect(mapped).toBeInstanceOf(StoreError)
    expect(mapped.message).toMatch(/run migrate\(\)/)
    expect(mapped.isRetryable).toBe(false)
  })

  it('a syntax error → non-retryable StoreError carrying the SQLSTATE', async () => {
    const error = await caught(pool.query('SELEC 1'))
    const mapped = mapPostgresError(error, 'selecting')
    expect(mapped.code).toBe('store')
    expect(mapped.isRetryable).toBe(false)
    expect(mapped.details).toMatchObject({ sqlState: '42601' })
  })
})

it('a refused connection (ECONNREFUSED, no SQLSTATE) → retryable StoreError', async () => {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2000 })
  const error = await caught(client.connect())
  const mapped = mapPostgresError(error, 'connecting')
  expect(mapped).toBeInstanceOf(StoreError)
  expect(mapped.isRetryable).toBe(true)
})

it('08xxx connection exceptions are retryable; Spindle errors pass through unchanged', () => {
  for (const code of ['08000', '08003', '08006', '57P01', '40001', '40P01']) {
    expect(isRetryablePostgresError(Object.assign(new Error('x'), { code }))).toBe(true)
  }
  expect(isRetryablePostgresError(Object.assign(new Error('x'), { code: '23505' }))).toBe(false)
  const stale = new StaleFenceError('stale')
  expect(mapPostgresError(stale, 'anything')).toBe(stale)
  expect(SpindleError.isInstance(mapPostgresError(new Error('boom'), 'x'))).toBe(true)
})
