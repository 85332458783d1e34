import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../errors/errors.js'
import { cosineSimilarity } from '../stores/cosine.js'
import { hashEmbedding } from './hash-embedding.js'

const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0))
const dot = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0)

describe('hashEmbedding', () => {
  it('describes itself as a v1 embedding model with 256 dimensions by default', () => {
    const model = hashEmbedding()
    expect(model.specificationVersion).toBe('v1')
    expect(model.dimensions).toBe(256)
    expect(model.modelId).toBe('hash-256')
    expect(hashEmbedding({ dimensions: 64 }).modelId).toBe('hash-64')
  })

  it('rejects dimensions that are not a positive integer', () => {
    for (const dimensions of [0, -4, 1.5, Number.NaN]) expect(() => hashEmbedding({ dimensions })).toThrow(ConfigurationError)
    expect(() => hashEmbedding({ dimensions: 0 })).toThrow(/positive integer, got 0/)
  })

  it('returns one vector of the configured dimension per text, in order', async () => {
    const { embeddings } = await hashEmbedding({ dimensions: 32 }).embed(['one', 'two', 'three'])
    expect(embeddings).toHaveLength(3)
    for (const vector of embeddings) expect(vector).toHaveLength(32)
    expect(embeddings[0]).not.toEqual(embeddings[1])
  })

  it('gives exactly the feature-hashed SHA-1 vector, the first time a feature is seen and every time after', async () => {
    // The algorithm written out once more: words and padded trigrams, SHA-1 bits for the index and the sign.
    const reference = (text: string, dimensions: number): number[] => {
      const vector = Array.from({ length: dimensions }, () => 0)
      const add = (feature: string, weight: number) => {
        const digest = createHash('sha1').update(feature).digest()
        vector[digest.readUInt32BE(0) % dimensions]! += (digest[4]! & 1 ? 1 : -1) * weight
      }
      for (const word of text
        .toLowerCase()
        .normalize('NFKC')
        .match(/[\p{L}\p{N}]+/gu) ?? []) {
        add(`w:${word}`, 1)
        const padded = `^${word}$`
        for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.5)
      }
      const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0))
      return norm === 0 ? vector : vector.map((value) => value / norm)
    }
    const texts = [`never seen before ${process.pid} ${Date.now()}`, 'the weather in Paris', 'the weather in Paris', 'Ünïcödé wörds 42']
    for (const dimensions of [256, 7, 1024]) {
      const { embeddings } = await hashEmbedding({ dimensions }).embed(texts)
      embeddings.forEach((vector, index) => expect(vector).toEqual(reference(texts[index]!, dimensions)))
    }
  })

  it('is deterministic across calls and across instances', async () => {
    const text = 'The quick brown fox jumps over the lazy dog'
    const a = (await hashEmbedding().embed([text])).embeddings[0]!
    const b = (await hashEmbedding().embed([text])).embeddings[0]!
    expect(a).toEqual(b)
  })

  it('returns unit-length vectors, and a zero vector for text without words', async () => {
    const { embeddings } = await hashEmbedding().embed(['hello world', 'a much longer sentence about invoices and spreadsheets', '日本語のテキスト', '  ...  '])
    for (const vector of embeddings.slice(0, 3)) expect(norm(vector)).toBeCloseTo(1, 10)
    expect(embeddings[3]!.every((value) => value === 0)).toBe(true)
  })

  it('ignores case and Unicode compatibility forms', async () => {
    const { embeddings } = await hashEmbedding().embed(['Hello World', 'hello world', 'ｈｅｌｌｏ world'])
    expect(embeddings[0]).toEqual(embeddings[1])
    expect(embeddings[2]).toEqual(embeddings[1])
  })

  it('puts similar texts closer than unrelated ones', async () => {
    const { embeddings } = await hashEmbedding().embed([
      'the invoice total for march was paid',
      'the march invoice total has been paid',
      'my cat sleeps on the warm windowsill',
    ])
    const [invoice, invoiceParaphrase, cat] = embeddings as [number[], number[], number[]]
    const similar = dot(invoice, invoiceParaphrase)
    const unrelated = dot(invoice, cat)
    expect(similar).toBeGreaterThan(unrelated)
    expect(similar).toBeGreaterThan(0.5)
    expect(cosineSimilarity(invoice, invoiceParaphrase)).toBeCloseTo(similar, 10)
  })

  it('character trigrams make inflected words closer than unrelated words', async () => {
    const { embeddings } = await hashEmbedding().embed(['spreadsheet', 'spreadsheets', 'volcano'])
    const [word, plural, other] = embeddings as [number[], number[], number[]]
    expect(dot(word, plural)).toBeGreaterThan(dot(word, other))
    expect(dot(word, plural)).toBeGreaterThan(0.3)
  })
})
