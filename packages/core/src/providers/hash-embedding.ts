// hashEmbedding: a deterministic, offline EmbeddingModel (feature hashing of words and character trigrams).
import { ConfigurationError } from '../errors/errors.js'
import type { EmbeddingModel } from '../spec/language-model.js'
import { createHash } from 'node:crypto'

/** Options of `hashEmbedding()`: the vector size. */
export interface HashEmbeddingOptions {
  dimensions?: number
}

/**
 * Similar texts get similar vectors; good enough for offline recall tests and demos, not for production quality.
 *
 * @example
 * const { embeddings } = await hashEmbedding().embed(['hello world'])
 */
export function hashEmbedding(options: HashEmbeddingOptions = {}): EmbeddingModel {
  const dimensions = options.dimensions ?? 256
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new ConfigurationError(`[spindle/core] hashEmbedding: dimensions must be a positive integer, got ${dimensions}`)
  }
  return {
    specificationVersion: 'v1',
    provider: 'spindle',
    modelId: `hash-${dimensions}`,
    dimensions,
    async embed(texts) {
      return { embeddings: texts.map((text) => embedText(text, dimensions)) }
    },
  }
}

function embedText(text: string, dimensions: number): number[] {
  const vector = Array.from({ length: dimensions }, () => 0)
  const normalized = text.toLowerCase().normalize('NFKC')
  const words = normalized.match(/[\p{L}\p{N}]+/gu) ?? []
  for (const word of words) {
    addFeature(vector, `w:${word}`, 1)
    const padded = `^${word}$`
    for (let i = 0; i + 3 <= padded.length; i++) addFeature(vector, `t:${padded.slice(i, i + 3)}`, 0.5)
  }
  let norm = 0
  for (const value of vector) norm += value * value
  norm = Math.sqrt(norm)
  return norm === 0 ? vector : vector.map((value) => value / norm)
}

/**
 * Each feature's SHA-1 bits (its first 32 bits, times two, plus the sign bit), kept for the process: the same
 * words and trigrams come back in almost every text, and a SHA-1 through node:crypto costs about a microsecond.
 * Bounded: emptied when it reaches `featureCacheLimit` entries. The vectors are exactly those of the uncached hash.
 */
const featureBits = new Map<string, number>()
const featureCacheLimit = 100_000

function addFeature(vector: number[], feature: string, weight: number): void {
  let bits = featureBits.get(feature)
  if (bits === undefined) {
    const digest = createHash('sha1').update(feature).digest()
    bits = digest.readUInt32BE(0) * 2 + ((digest[4] ?? 0) & 1)
    if (featureBits.size >= featureCacheLimit) featureBits.clear()
    featureBits.set(feature, bits)
  }
  const index = Math.floor(bits / 2) % vector.length
  const sign = bits % 2 ? 1 : -1
  vector[index] = (vector[index] ?? 0) + sign * weight
}
