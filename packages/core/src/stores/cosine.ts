// Exact cosine similarity, shared by every store that ranks vectors without an index.

/**
 * Cosine similarity of two vectors of the same length, in [-1, 1]; 0 when either vector has no length.
 *
 * @example
 * cosineSimilarity([1, 0], [1, 1]) // ≈ 0.7071
 */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const length = Math.min(a.length, b.length)
  let dot = 0
  let normA = 0
  let normB = 0
  for (let i = 0; i < length; i++) {
    const x = a[i] as number
    const y = b[i] as number
    dot += x * y
    normA += x * x
    normB += y * y
  }
  if (normA === 0 || normB === 0) return 0
  const score = dot / (Math.sqrt(normA) * Math.sqrt(normB))
  // Rounding can push a score a hair outside [-1, 1].
  return Math.max(-1, Math.min(1, score))
}
