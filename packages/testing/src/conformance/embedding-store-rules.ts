// Conformance checks of EmbeddingStore, spec v1: upsert, cosine top-k, ties, filters, minScore, namespaces, dimensions.
import { SpindleError, type EmbeddingMatch, type EmbeddingStore } from '@spindle/core'
import { expect } from 'vitest'
import { embeddingCopyOutRules } from './copy-out-rules.js'
import type { ConformanceChecks } from './harness.js'
import { rejection, rule } from './rule.js'
import { expectExactJson, unicodeFix, unicodeOutcome, unicodeSamples } from './samples.js'

const summary = (matches: EmbeddingMatch[]) => matches.map((match) => match.id)

function expectVector(actual: number[] | undefined, expected: number[]): void {
  expect(actual, 'vector').toHaveLength(expected.length)
  expected.forEach((value, i) => expect(actual![i]).toBeCloseTo(value, 5))
}

/**
 * The checks of the EmbeddingStore conformance kit, by name; `describeEmbeddingStore` runs each as a test. A check fails with a
 * `ConformanceError` naming the rule broken and how to fix it. Run one alone to narrow a failure:
 *
 * @example
 * await embeddingStoreRules['embedding.upsert-get']({ create: () => createMyStore() })
 */
export const embeddingStoreRules: ConformanceChecks<EmbeddingStore> = {
  async 'embedding.upsert-get'({ create }) {
    const store = await create()
    await store.upsert([
      { id: 'a', vector: [0.25, -0.5, 1], content: 'hello', metadata: { kind: 'doc', n: 2, ok: true } },
      { id: 'b', vector: [1, 0, 0] },
    ])
    await rule(
      'embedding.get',
      'get must return the stored record: id, vector (float32 precision is fine), content, namespace, metadata ({} when none was given)',
      async () => {
        const a = await store.get('a')
        expect(a).toMatchObject({ id: 'a', content: 'hello', metadata: { kind: 'doc', n: 2, ok: true } })
        expectVector(a?.vector, [0.25, -0.5, 1])
        expect((await store.get('b'))?.metadata).toEqual({})
        expect(await store.get('missing')).toBeUndefined()
      },
    )
    await rule('embedding.upsert.replace', 'upsert with an existing id must replace the record (vector, content, metadata)', async () => {
      await store.upsert([{ id: 'a', vector: [0, 1, 0], content: 'bye', metadata: { kind: 'note' } }])
      const a = await store.get('a')
      expect(a).toMatchObject({ id: 'a', content: 'bye', metadata: { kind: 'note' } })
      expectVector(a?.vector, [0, 1, 0])
      expect(summary(await store.query({ vector: [0, 1, 0], topK: 10 }))).toEqual(['a', 'b'])
    })
  },

  async 'embedding.query.top-k'({ create }) {
    const store = await create()
    await store.upsert([
      { id: 'same', vector: [2, 0, 0] },
      { id: 'close', vector: [0.9, 0.1, 0] },
      { id: 'orthogonal', vector: [0, 1, 0] },
      { id: 'opposite', vector: [-1, 0, 0] },
      { id: 'diagonal', vector: [1, 1, 0] },
    ])
    await rule('embedding.query.order', 'query must rank by cosine similarity (not dot product or distance), best first, and return at most topK', async () => {
      const top = await store.query({ vector: [1, 0, 0], topK: 3 })
      expect(summary(top)).toEqual(['same', 'close', 'diagonal'])
      expect(top[0].score).toBeCloseTo(1, 5)
      expect(top[1].score).toBeCloseTo(0.9 / Math.sqrt(0.82), 5)
      expect(top[2].score).toBeCloseTo(Math.SQRT1_2, 5)
    })
    await rule('embedding.query.scores', 'scores must be cosine similarities in [-1, 1]; topK above the count returns everything', async () => {
      const all = await store.query({ vector: [3, 0, 0], topK: 50 })
      expect(summary(all)).toEqual(['same', 'close', 'diagonal', 'orthogonal', 'opposite'])
      expect(all[3].score).toBeCloseTo(0, 5)
      expect(all[4].score).toBeCloseTo(-1, 5)
      expectVector(all[0].vector, [2, 0, 0])
    })
    await rule('embedding.query.ties', 'equal scores must be ordered by ascending id', async () => {
      await store.upsert([
        { id: 'tie-b', vector: [0, 0, 1] },
        { id: 'tie-a', vector: [0, 0, 2] },
        { id: 'tie-c', vector: [0, 0, 3] },
      ])
      expect(summary(await store.query({ vector: [0, 0, 1], topK: 3 }))).toEqual(['tie-a', 'tie-b', 'tie-c'])
    })
  },

  async 'embedding.query.filter'({ create }) {
    const store = await create()
    await store.upsert([
      { id: 'en-doc', vector: [1, 0], metadata: { kind: 'doc', lang: 'en', pinned: true, rank: 1 } },
      { id: 'fr-doc', vector: [0.9, 0.1], metadata: { kind: 'doc', lang: 'fr', pinned: false, rank: 2 } },
      { id: 'de-note', vector: [0.8, 0.2], metadata: { kind: 'note', lang: 'de', rank: 1 } },
      { id: 'bare', vector: [0.7, 0.3] },
    ])
    const ids = async (filter: Parameters<EmbeddingStore['query']>[0]['filter'], minScore?: number) =>
      summary(await store.query({ vector: [1, 0], topK: 10, filter, ...(minScore !== undefined && { minScore }) }))
    await rule(
      'embedding.query.filter',
      'every filter key must equal the metadata value (strings, numbers, booleans); a record without the key never matches',
      async () => {
        expect(await ids({ kind: 'doc' })).toEqual(['en-doc', 'fr-doc'])
        expect(await ids({ kind: 'doc', lang: 'fr' })).toEqual(['fr-doc'])
        expect(await ids({ pinned: true })).toEqual(['en-doc'])
        expect(await ids({ rank: 1 })).toEqual(['en-doc', 'de-note'])
        expect(await ids({ kind: 'missing' })).toEqual([])
      },
    )
    await rule('embedding.query.filter-in', 'a filter value that is an array matches when the metadata value is one of its items', async () => {
      expect(await ids({ lang: ['de', 'en'] })).toEqual(['en-doc', 'de-note'])
      expect(await ids({ lang: ['de', 'en'], kind: 'note' })).toEqual(['de-note'])
    })
    await rule('embedding.query.min-score', 'query must drop matches whose score is below minScore', async () => {
      expect(await ids(undefined, 0.99)).toEqual(['en-doc', 'fr-doc'])
      expect(await ids({ kind: 'note' }, 0.99)).toEqual([])
    })
  },

  async 'embedding.namespaces'({ create }) {
    const store = await create()
    await store.upsert([
      { id: 'a-1', vector: [1, 0], namespace: 'a' },
      { id: 'a-2', vector: [0, 1], namespace: 'a' },
      { id: 'b-1', vector: [1, 0, 0, 0], namespace: 'b' },
      { id: 'default-1', vector: [1, 0, 0] },
    ])
    await rule(
      'embedding.namespace.isolates',
      'query({ namespace }) must search only that namespace; a query without namespace searches only records stored without one',
      async () => {
        expect(summary(await store.query({ vector: [1, 0], topK: 10, namespace: 'a' }))).toEqual(['a-1', 'a-2'])
        expect(summary(await store.query({ vector: [1, 0, 0, 0], topK: 10, namespace: 'b' }))).toEqual(['b-1'])
        expect(summary(await store.query({ vector: [1, 0, 0], topK: 10 }))).toEqual(['default-1'])
        expect((await store.get('a-1'))?.namespace).toBe('a')
      },
    )
    await rule('embedding.namespace.delete', 'deleteNamespace must delete every record of that namespace and nothing else', async () => {
      await store.deleteNamespace('a')
      expect(await store.get('a-1')).toBeUndefined()
      expect(await store.query({ vector: [1, 0], topK: 10, namespace: 'a' })).toEqual([])
      expect(await store.get('b-1')).toBeDefined()
      expect(await store.get('default-1')).toBeDefined()
    })
    await rule('embedding.delete', 'delete(ids) must remove those records and ignore unknown ids', async () => {
      await store.delete(['b-1', 'never-stored'])
      expect(await store.get('b-1')).toBeUndefined()
      expect(await store.get('default-1')).toBeDefined()
    })
  },

  async 'embedding.dimension'({ create }) {
    const store = await create()
    await store.upsert([{ id: 'x', vector: [1, 0, 0], namespace: 'n' }])
    await rule(
      'embedding.dimension.mismatch',
      'upsert must throw a SpindleError (e.g. StoreError naming both dimensions) when a vector’s dimension differs from its namespace’s, and keep the stored records',
      async () => {
        const error = await rejection(() => store.upsert([{ id: 'y', vector: [1, 0, 0, 0], namespace: 'n' }]))
        expect(SpindleError.isInstance(error), 'the error must be a SpindleError').toBe(true)
        expect(await store.get('y')).toBeUndefined()
        expectVector((await store.get('x'))?.vector, [1, 0, 0])
      },
    )
    await rule('embedding.dimension.per-namespace', 'dimensions are per namespace: another namespace may hold another dimension', async () => {
      await store.upsert([{ id: 'z', vector: [1, 0, 0, 0, 0], namespace: 'other' }])
      expect(summary(await store.query({ vector: [1, 0, 0, 0, 0], topK: 1, namespace: 'other' }))).toEqual(['z'])
    })
  },

  async 'embedding.isolation'({ create }) {
    const first = await create()
    const second = await create()
    await first.upsert([
      { id: 'e', vector: [1, 0], namespace: 'n' },
      { id: 'f', vector: [1, 0] },
    ])
    await rule(
      'embedding.isolation',
      'two stores returned by create() must never see each other’s data: keep state per instance, use a fresh database/schema/prefix per instance',
      async () => {
        expect(await second.get('e')).toBeUndefined()
        expect(await second.query({ vector: [1, 0], topK: 5, namespace: 'n' })).toEqual([])
        expect(await second.query({ vector: [1, 0], topK: 5 })).toEqual([])
      },
    )
  },

  async 'embedding.unicode'({ create }) {
    const store = await create()
    for (const [name, sample] of Object.entries(unicodeSamples)) {
      await rule(`embedding.unicode.${name}`, unicodeFix, async () => {
        await unicodeOutcome(
          sample,
          () => store.upsert([{ id: `u-${name}`, vector: [1, 2], content: sample, metadata: { text: sample } }]),
          async () => {
            const record = await store.get(`u-${name}`)
            return { content: record?.content, metadata: record?.metadata }
          },
          { content: sample, metadata: { text: sample } },
        )
        const metadata = { text: sample, [`key ${sample}`]: [sample] }
        const outcome = await unicodeOutcome(
          sample,
          () => store.upsert([{ id: `m-${name}`, vector: [2, 1], namespace: 'metadata', metadata }]),
          async () => (await store.get(`m-${name}`))?.metadata,
          metadata,
        )
        await expectExactJson(`embedding.unicode.json.${name}`, sample, outcome)
        await rule(
          `embedding.unicode.filter.${name}`,
          'a metadata filter must match a string exactly as it was stored (escape it the way the metadata is escaped)',
          async () => {
            const matches = await store.query({ vector: [2, 1], topK: 10, namespace: 'metadata', filter: { text: sample } })
            expect(matches.map((match) => match.id)).toEqual([`m-${name}`])
          },
        )
      })
    }
  },

  async 'embedding.values-copied'({ create }) {
    const store = await create()
    const vector = [1, 0]
    const metadata = { tags: ['a'] }
    await store.upsert([{ id: 'v', vector, metadata }])
    vector[0] = -1
    metadata.tags.push('mutated')
    await rule('embedding.values-copied', 'a store must copy values in and out: callers mutating inputs or results must not change stored data', async () => {
      const record = await store.get('v')
      expectVector(record?.vector, [1, 0])
      expect(record?.metadata).toEqual({ tags: ['a'] })
    })
  },
  ...embeddingCopyOutRules,
}
