// pgvector is not installed on the test server, so its SQL (extension, vector column, HNSW index, <=> queries)
// runs here against PGlite with its vector extension; the exact scan runs against the real server elsewhere.
import { describeEmbeddingStore } from '@spindle/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresStores, type PostgresStores } from './postgres-stores.js'
import type { SqlDatabase } from './sql-database.js'
import { openPgliteWithVector } from './test-support/pglite-database.js'
import { randomSchemaName } from './test-support/postgres-test-database.js'

let database: SqlDatabase
let close: () => Promise<void>
const opened = openPgliteWithVector().then((pglite) => {
  database = pglite.database
  close = pglite.close
})

async function freshStores(): Promise<PostgresStores> {
  await opened
  const stores = createPostgresStores(database, { schema: randomSchemaName(), ownsPool: false })
  await stores.migrate()
  return stores
}

afterAll(async () => {
  await opened
  await close()
})

describe('pgvector path (PGlite + vector)', () => {
  let stores: PostgresStores
  beforeAll(async () => {
    stores = await freshStores()
  }, 60_000)

  it('installs the extension, adds the vector column and uses it', async () => {
    expect(stores.usesPgvector).toBe(true)
    const { rows } = await database.query<{ data_type: string }>(
      `SELECT udt_name AS data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'embeddings' AND column_name = 'embedding'`,
      [stores.schema],
    )
    expect(rows[0]?.data_type).toBe('vector')
  })

  it('creates one partial HNSW index per dimension count, and an unfiltered query walks it', async () => {
    const records = Array.from({ length: 60 }, (_, i) => ({ id: `v${String(i).padStart(2, '0')}`, vector: [Math.cos(i / 10), Math.sin(i / 10), 0.5] }))
    await stores.embeddings.upsert(records)
    const { rows } = await database.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'embeddings_hnsw_3_idx'`,
      [stores.schema],
    )
    expect(rows[0]?.indexdef).toMatch(/USING hnsw .*vector_cosine_ops.*WHERE \(dimensions = 3\)/)
    const matches = await stores.embeddings.query({ vector: [1, 0, 0.5], topK: 3 })
    expect(matches.map((match) => match.id)).toEqual(['v00', 'v01', 'v02'])
    expect(matches[0]!.score).toBeCloseTo(1, 6)
    expect(matches[1]!.score).toBeGreaterThan(matches[2]!.score)
    // The planner takes the index when sequential scans are off (the table is tiny otherwise).
    const plan = await database.transaction(async (transaction) => {
      await transaction.query('SET LOCAL enable_seqscan = off')
      const result = await transaction.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT id FROM "${stores.schema}".embeddings WHERE namespace IS NULL AND dimensions = 3
         ORDER BY embedding::vector(3) <=> '[1,0,0.5]'::vector(3) LIMIT 3`,
      )
      return result.rows.map((row) => row['QUERY PLAN']).join('\n')
    })
    expect(plan).toContain('embeddings_hnsw_3_idx')
  })

  it('back-fills the vector column of rows written before pgvector was detected', async () => {
    const exact = createPostgresStores(database, { schema: randomSchemaName(), ownsPool: false, vectorSearch: 'exact' })
    await exact.migrate()
    expect(exact.usesPgvector).toBe(false)
    await exact.embeddings.upsert([{ id: 'old', vector: [0, 1] }])
    const upgraded = createPostgresStores(database, { schema: exact.schema, ownsPool: false })
    await upgraded.migrate()
    expect(upgraded.usesPgvector).toBe(true)
    const { rows } = await database.query<{ embedding: string }>(`SELECT embedding::text AS embedding FROM "${exact.schema}".embeddings WHERE id = 'old'`)
    expect(rows[0]?.embedding).toBe('[0,1]')
    expect((await upgraded.embeddings.query({ vector: [0, 2], topK: 1 }))[0]).toMatchObject({ id: 'old', score: 1 })
  })
})

// The whole EmbeddingStore conformance suite, on the pgvector path.
describeEmbeddingStore('postgres + pgvector (PGlite)', {
  create: async () => (await freshStores()).embeddings,
})
