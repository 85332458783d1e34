// postgresStores(): migrations (once across concurrent processes, refusing a newer schema), the plugin, pool ownership.
import { ConfigurationError, Extensions, StaleFenceError, StoreError } from '@spindle/core'
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import * as entry from './index.js'
import { latestSchemaVersion, postgresStores, runMigrations } from './index.js'
import { poolDatabase } from './sql-database.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const schemas: string[] = []
const pools: pg.Pool[] = []
function schema(): string {
  const name = randomSchemaName()
  schemas.push(name)
  return name
}
function pool(max = 10): pg.Pool {
  const created = new pg.Pool({ connectionString: databaseUrl, max })
  pools.push(created)
  return created
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end().catch(() => {})))
  for (const name of schemas.splice(0)) await dropSchema(name)
})

it('exports every documented symbol from the package entry', () => {
  for (const name of [
    'postgresStores',
    'PostgresStoreBatch',
    'PostgresSessionGate',
    'PostgresEventBus',
    'mapPostgresError',
    'isRetryablePostgresError',
    'runMigrations',
    'latestSchemaVersion',
  ]) {
    expect(entry, name).toHaveProperty(name)
  }
})

it('refuses both pool and connectionString, and a schema that is not an identifier', () => {
  expect(() => postgresStores({ pool: new pg.Pool(), connectionString: databaseUrl })).toThrow(ConfigurationError)
  expect(() => postgresStores({ connectionString: databaseUrl, schema: 'bad"; DROP' })).toThrow(/plain identifier/)
})

describePostgres('postgresStores', () => {
  it('concurrent migrations from separate pools apply each version exactly once', async () => {
    const name = schema()
    const results = await Promise.all(Array.from({ length: 5 }, () => runMigrations(poolDatabase(pool(2)), name)))
    expect(results.filter((result) => result.applied.length > 0)).toHaveLength(1)
    expect(results.every((result) => result.version === latestSchemaVersion)).toBe(true)
    const { rows } = await pool().query(`SELECT version FROM "${name}".spindle_migrations ORDER BY version`)
    expect(rows.map((row) => row.version)).toEqual(Array.from({ length: latestSchemaVersion }, (_, i) => i + 1))
  })

  it('a schema newer than the code is refused with a StoreError that says what to do', async () => {
    const name = schema()
    const shared = pool()
    await runMigrations(poolDatabase(shared), name)
    await shared.query(`INSERT INTO "${name}".spindle_migrations (version, name) VALUES ($1, 'from-the-future')`, [latestSchemaVersion + 1])
    const stores = postgresStores({ pool: shared, schema: name })
    const error = await stores.migrate().then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(StoreError)
    expect((error as Error).message).toMatch(/newer than this @spindle\/store-postgres knows.*upgrade/)
  })

  it('is a plugin: setup migrates and sets the six stores; dispose ends the pool it created', async () => {
    const name = schema()
    const stores = postgresStores({ connectionString: databaseUrl, schema: name })
    const extensions = new Extensions().use(stores)
    await extensions.ready()
    expect(extensions.stores.sessions).toBe(stores.sessions)
    expect(extensions.stores.artifacts).toBe(stores.artifacts)
    expect(Object.keys(extensions.stores).sort()).toEqual(['artifacts', 'embeddings', 'executions', 'runs', 'sessions', 'snapshots'])
    expect(stores.usesPgvector).toBe(false) // pgvector is not installed on this server: the exact scan is in use
    const session = await extensions.stores.sessions!.createSession({ title: 'plugin' })
    expect((await stores.sessions.getSession(session.id))?.title).toBe('plugin')
    await extensions.dispose()
    expect(stores.pool.ended).toBe(true)
  })

  it('never ends a pool the user passed', async () => {
    const own = pool()
    const stores = postgresStores({ pool: own, schema: schema() })
    const extensions = new Extensions().use(stores)
    await extensions.ready()
    await extensions.dispose()
    expect(own.ended).toBe(false)
    expect((await own.query('SELECT 1 AS one')).rows[0].one).toBe(1)
  })

  it('append: the highest fence wins across connections; a lower one is rejected and writes nothing', async () => {
    const name = schema()
    const first = postgresStores({ pool: pool(), schema: name })
    const second = postgresStores({ pool: pool(), schema: name })
    await first.migrate()
    const session = await first.sessions.createSession()
    const message = { kind: 'message' as const, message: { role: 'user' as const, content: 'hi' } }
    await first.sessions.append(session.id, [message], { fence: 1 })
    await second.sessions.append(session.id, [message], { fence: 2 })
    await expect(first.sessions.append(session.id, [message], { fence: 1 })).rejects.toBeInstanceOf(StaleFenceError)
    await second.sessions.append(session.id, [message]) // unfenced writers are not checked
    expect((await first.sessions.listEntries(session.id)).map((entry) => entry.seq)).toEqual([1, 2, 3])
  })

  it('gap-free seq under 40 concurrent appends from four pools', async () => {
    const name = schema()
    const all = Array.from({ length: 4 }, () => postgresStores({ pool: pool(4), schema: name }))
    await all[0]!.migrate()
    const session = await all[0]!.sessions.createSession()
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        all[i % 4]!.sessions.append(session.id, [
          { kind: 'message', message: { role: 'user', content: `a${i}` } },
          { kind: 'message', message: { role: 'user', content: `b${i}` } },
        ]),
      ),
    )
    const seqs = (await all[1]!.sessions.listEntries(session.id)).map((entry) => entry.seq)
    expect(seqs).toEqual(Array.from({ length: 80 }, (_, i) => i + 1))
    expect((await all[2]!.sessions.getSession(session.id))?.lastSeq).toBe(80)
  })
})
