import { StoreError, type EmbeddingQuery } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'
import type { SqliteStores } from './index.js'

/** A deterministic pseudo-random generator, so the cross-check below is reproducible. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

async function fill(stores: SqliteStores, count: number, dimension: number): Promise<void> {
  const next = random(42)
  const colors = ['red', 'green', 'blue']
  await stores.embeddings.upsert(
    Array.from({ length: count }, (_, i) => ({
      id: `e${String(i).padStart(4, '0')}`,
      vector: Array.from({ length: dimension }, () => next() * 2 - 1),
      metadata: { color: colors[i % 3]!, rank: i % 5, even: i % 2 === 0, tag: i % 7 === 0 ? null : 'x' },
    })),
  )
}

describe('SqliteEmbeddingStore', () => {
  it('loads sqlite-vec on this machine (the accelerated path) and can be forced to the exact scorer', () => {
    const auto = openStores({ path: tempDatabasePath() })
    expect(auto.embeddings.vectorSearch).toBe('sqlite-vec')
    const exact = openStores({ path: tempDatabasePath(), vectorSearch: 'exact' })
    expect(exact.embeddings.vectorSearch).toBe('exact')
  })

  it('sqlite-vec and the exact scorer return the same top-k, scores and order, with filters', async () => {
    const vec = openStores({ path: tempDatabasePath() })
    const exact = openStores({ path: tempDatabasePath(), vectorSearch: 'exact' })
    await fill(vec, 300, 16)
    await fill(exact, 300, 16)
    const next = random(7)
    const queries: EmbeddingQuery[] = [
      { vector: Array.from({ length: 16 }, () => next() - 0.5), topK: 10 },
      { vector: Array.from({ length: 16 }, () => next() - 0.5), topK: 5, filter: { color: 'red' } },
      { vector: Array.from({ length: 16 }, () => next() - 0.5), topK: 7, filter: { color: ['green', 'blue'], even: true } },
      { vector: Array.from({ length: 16 }, () => next() - 0.5), topK: 50, filter: { rank: 3 }, minScore: 0.1 },
      { vector: Array.from({ length: 16 }, () => next() - 0.5), topK: 4, filter: { tag: null } },
    ]
    for (const query of queries) {
      const a = await vec.embeddings.query(query)
      const b = await exact.embeddings.query(query)
      expect(a.length).toBeGreaterThan(0)
      expect(a).toEqual(b)
      // Best first, and each match honours the filter.
      for (let i = 1; i < a.length; i++) expect(a[i - 1]!.score).toBeGreaterThanOrEqual(a[i]!.score)
      for (const match of a) {
        for (const [key, value] of Object.entries(query.filter ?? {})) {
          expect(Array.isArray(value) ? value : [value]).toContain(match.metadata[key])
        }
        if (query.minScore !== undefined) expect(match.score).toBeGreaterThanOrEqual(query.minScore)
      }
    }
  })

  it('matches a brute-force ranking of every stored vector', async () => {
    const stores = openStores({ path: tempDatabasePath() })
    await fill(stores, 200, 8)
    const query = [0.3, -0.2, 0.9, 0.1, 0, -0.5, 0.25, 0.6]
    const all = await Promise.all(Array.from({ length: 200 }, (_, i) => stores.embeddings.get(`e${String(i).padStart(4, '0')}`)))
    const cosine = (a: number[], b: number[]) => {
      let dot = 0,
        na = 0,
        nb = 0
      for (let i = 0; i < a.length; i++) {
        dot += a[i]! * b[i]!
        na += a[i]! ** 2
        nb += b[i]! ** 2
      }
      return dot / Math.sqrt(na * nb)
    }
    const expected = all
      .map((record) => ({ id: record!.id, score: cosine(query, record!.vector) }))
      .sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1))
      .slice(0, 12)
    const actual = await stores.embeddings.query({ vector: query, topK: 12 })
    expect(actual.map((match) => match.id)).toEqual(expected.map((match) => match.id))
    actual.forEach((match, i) => expect(match.score).toBeCloseTo(expected[i]!.score, 12))
  })

  it('stores vectors as Float32 blobs and scores a zero vector 0', async () => {
    const stores = openStores({ path: tempDatabasePath() })
    await stores.embeddings.upsert([
      { id: 'a', vector: [0.1, 0.2, 0.3] },
      { id: 'zero', vector: [0, 0, 0] },
    ])
    const blob = stores.database.prepare("SELECT vector FROM embeddings WHERE id = 'a'").pluck().get() as Buffer
    expect(blob.byteLength).toBe(12)
    expect((await stores.embeddings.get('a'))?.vector).toEqual(Array.from(Float32Array.from([0.1, 0.2, 0.3])))
    const matches = await stores.embeddings.query({ vector: [1, 1, 1], topK: 2 })
    expect(matches.map((m) => [m.id, m.score > 0.9, m.score])).toEqual([
      ['a', true, matches[0]!.score],
      ['zero', false, 0],
    ])
  })

  it('keeps namespaces apart, one dimension each, and deletes a namespace', async () => {
    const { embeddings } = openStores({ path: tempDatabasePath() })
    await embeddings.upsert([
      { id: 'd', vector: [1, 0] },
      { id: 'n1', vector: [1, 0, 0], namespace: 'three' },
      { id: 'n2', vector: [0, 1, 0], namespace: 'three' },
    ])
    expect((await embeddings.query({ vector: [1, 0], topK: 5 })).map((m) => m.id)).toEqual(['d'])
    expect((await embeddings.query({ vector: [1, 0, 0], topK: 5, namespace: 'three' })).map((m) => m.id)).toEqual(['n1', 'n2'])
    await expect(embeddings.upsert([{ id: 'bad', vector: [1, 0, 0, 0], namespace: 'three' }])).rejects.toBeInstanceOf(StoreError)
    await expect(embeddings.query({ vector: [1, 0], topK: 1, namespace: 'three' })).rejects.toThrow(/3/)
    // A failed batch writes nothing.
    await expect(
      embeddings.upsert([
        { id: 'ok', vector: [0, 0, 1], namespace: 'three' },
        { id: 'bad', vector: [1], namespace: 'three' },
      ]),
    ).rejects.toThrow(StoreError)
    expect(await embeddings.get('ok')).toBeUndefined()
    await embeddings.deleteNamespace('three')
    expect(await embeddings.query({ vector: [1, 0, 0], topK: 5, namespace: 'three' })).toEqual([])
    expect(await embeddings.get('d')).toBeDefined()
    // An empty namespace accepts a new dimension.
    await embeddings.upsert([{ id: 'n3', vector: [1, 2, 3, 4], namespace: 'three' }])
    expect((await embeddings.get('n3'))?.namespace).toBe('three')
  })

  it('filters by strict JSON type, and exactly on strings SQLite cannot compare (lone surrogates)', async () => {
    const { embeddings } = openStores({ path: tempDatabasePath() })
    await embeddings.upsert([
      { id: 'one', vector: [1, 0], metadata: { v: 1, s: 'a\uD800' } },
      { id: 'true', vector: [1, 0.1], metadata: { v: true, s: 'a\uDBFF' } },
      { id: 'text', vector: [1, 0.2], metadata: { v: '1', s: 'nul\u0000' }, content: 'c\uDC00\u0000' },
    ])
    const ids = async (filter: EmbeddingQuery['filter']) => (await embeddings.query({ vector: [1, 0], topK: 10, filter })).map((m) => m.id)
    expect(await ids({ v: 1 })).toEqual(['one'])
    expect(await ids({ v: true })).toEqual(['true'])
    expect(await ids({ v: '1' })).toEqual(['text'])
    expect(await ids({ v: [1, '1'] })).toEqual(['one', 'text'])
    expect(await ids({ v: [] })).toEqual([])
    expect(await ids({ missing: null })).toEqual([])
    expect(await ids({ s: 'a\uD800' })).toEqual(['one'])
    expect(await ids({ s: 'nul\u0000' })).toEqual(['text'])
    expect((await embeddings.get('text'))?.content).toBe('c\uDC00\u0000')
    expect((await embeddings.get('one'))?.metadata).toEqual({ v: 1, s: 'a\uD800' })
  })

  it('ranks a large namespace with an index lookup for its dimension, not a table scan', () => {
    const { database } = openStores({ path: tempDatabasePath() })
    const detail = (database.prepare("EXPLAIN QUERY PLAN SELECT dimension FROM embeddings WHERE namespace IS 'x' LIMIT 1").all() as Array<{ detail: string }>)
      .map((row) => row.detail)
      .join('; ')
    expect(detail).toMatch(/SEARCH embeddings USING (COVERING )?INDEX embeddings_by_namespace \(namespace=\?\)/)
  })
})
