// Exact top-k search over embedding records: metadata filters, minScore, best first with ties broken by id.
import type { EmbeddingMatch, EmbeddingQuery, EmbeddingRecord } from '../spec/embedding-store.js'
import type { JsonObject } from '../spec/json.js'
import { cosineSimilarity } from './cosine.js'

/** True when every filter key equals the metadata value (or, for an array, the value is one of its items). */
export function matchesEmbeddingFilter(metadata: JsonObject, filter: EmbeddingQuery['filter']): boolean {
  if (filter === undefined) return true
  for (const [key, expected] of Object.entries(filter)) {
    if (!Object.hasOwn(metadata, key)) return false
    const actual = metadata[key]
    if (Array.isArray(expected)) {
      if (!expected.some((item) => item === actual)) return false
    } else if (actual !== expected) return false
  }
  return true
}

/** Orders matches best first, ties broken by ascending id (the order `EmbeddingStore.query` must return). */
export function compareEmbeddingMatches(a: { id: string; score: number }, b: { id: string; score: number }): number {
  if (a.score !== b.score) return b.score - a.score
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/**
 * Ranks records against a query by exact cosine similarity. The caller restricts `records` to the query's
 * namespace; this applies the filter, `minScore` and `topK`.
 *
 * @example
 * const matches = rankEmbeddingMatches(recordsOfNamespace, { vector, topK: 5 })
 */
export function rankEmbeddingMatches(records: Iterable<EmbeddingRecord>, query: EmbeddingQuery): EmbeddingMatch[] {
  if (!(query.topK > 0)) return []
  const matches: EmbeddingMatch[] = []
  for (const record of records) {
    if (!matchesEmbeddingFilter(record.metadata, query.filter)) continue
    const score = cosineSimilarity(query.vector, record.vector)
    if (query.minScore !== undefined && score < query.minScore) continue
    matches.push({ ...record, score })
  }
  matches.sort(compareEmbeddingMatches)
  return matches.slice(0, Math.floor(query.topK))
}
