// Unit tests of the helpers store plugins share (the stores themselves run the conformance suites in @spindle/testing).
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { memoryStores, storeKinds } from '../index.js'
import {
  clampArtifactRange,
  collectArtifactSource,
  cosineSimilarity,
  matchesEmbeddingFilter,
  rankEmbeddingMatches,
  readArtifactBytes,
} from '../plugin-kit/index.js'

describe('store helpers', () => {
  it('cosineSimilarity is scale-invariant, bounded, and 0 for a zero vector', () => {
    expect(cosineSimilarity([1, 0], [5, 0])).toBeCloseTo(1, 12)
    expect(cosineSimilarity([1, 0], [-2, 0])).toBeCloseTo(-1, 12)
    expect(cosineSimilarity([1, 1], [1, 0])).toBeCloseTo(Math.SQRT1_2, 12)
    expect(cosineSimilarity([0, 0], [1, 0])).toBe(0)
  })

  it('matchesEmbeddingFilter compares primitives and treats arrays as "one of"', () => {
    expect(matchesEmbeddingFilter({ a: 1, b: 'x' }, { a: 1 })).toBe(true)
    expect(matchesEmbeddingFilter({ a: 1 }, { a: '1' })).toBe(false)
    expect(matchesEmbeddingFilter({ a: 'y' }, { a: ['x', 'y'] })).toBe(true)
    expect(matchesEmbeddingFilter({}, { a: null })).toBe(false)
    expect(matchesEmbeddingFilter({ a: null }, { a: null })).toBe(true)
  })

  it('rankEmbeddingMatches applies minScore, topK and breaks ties by id', () => {
    const records = [
      { id: 'b', vector: [1, 0], metadata: {} },
      { id: 'a', vector: [2, 0], metadata: {} },
      { id: 'c', vector: [0, 1], metadata: {} },
    ]
    expect(rankEmbeddingMatches(records, { vector: [1, 0], topK: 2 }).map((m) => m.id)).toEqual(['a', 'b'])
    expect(rankEmbeddingMatches(records, { vector: [1, 0], topK: 5, minScore: 0.5 })).toHaveLength(2)
    expect(rankEmbeddingMatches(records, { vector: [1, 0], topK: 0 })).toEqual([])
  })

  it('collectArtifactSource hashes strings as UTF-8 and streams chunk by chunk', async () => {
    async function* chunks() {
      yield new Uint8Array([1, 2])
      yield new Uint8Array([3])
    }
    const streamed = await collectArtifactSource(chunks())
    expect(streamed).toEqual({
      id: createHash('sha256')
        .update(new Uint8Array([1, 2, 3]))
        .digest('hex'),
      size: 3,
      bytes: new Uint8Array([1, 2, 3]),
    })
    expect((await collectArtifactSource('é')).bytes).toEqual(new Uint8Array([0xc3, 0xa9]))
    await expect(
      collectArtifactSource(
        (async function* () {
          yield 'text' as unknown as Uint8Array
        })(),
      ),
    ).rejects.toThrow(/Uint8Array/)
  })

  it('clampArtifactRange keeps [start, end) inside the artifact', () => {
    expect(clampArtifactRange(10)).toEqual({ start: 0, end: 10 })
    expect(clampArtifactRange(10, { start: -5, end: 99 })).toEqual({ start: 0, end: 10 })
    expect(clampArtifactRange(10, { start: 8, end: 3 })).toEqual({ start: 8, end: 8 })
  })

  it('memoryStores() returns the six v1 stores, fresh on every call', async () => {
    const first = memoryStores()
    const second = memoryStores()
    expect(Object.keys(first).sort()).toEqual([...storeKinds].sort())
    for (const kind of storeKinds) expect(first[kind].specificationVersion).toBe('v1')
    const { id } = await first.artifacts.put('shared?')
    expect(await readArtifactBytes(first.artifacts, id, { start: 1, end: 3 })).toEqual(new TextEncoder().encode('ha'))
    expect(await second.artifacts.head(id)).toBeUndefined()
  })
})
