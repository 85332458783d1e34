// Vector scoring for the SQLite EmbeddingStore: sqlite-vec's C distance when it loads, else a JS SQL function.
import { createRequire } from 'node:module'
import { ConfigurationError } from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'

/** `sqlite-vec` scores in C inside SQLite; `exact` scores with a JavaScript SQL function. Both are exact scans. */
export type VectorSearchMode = 'sqlite-vec' | 'exact'

export const cosineFunctionName = 'spindle_cosine'

/**
 * Installs the scoring function on the connection and returns the SQL expression that ranks a stored `vector`
 * against a bound Float32 query blob (a cosine similarity, 0 for a zero vector).
 */
export function installVectorSearch(
  database: BetterSqlite3.Database,
  requested: 'auto' | VectorSearchMode,
): { mode: VectorSearchMode; scoreSql: string; loadError?: unknown } {
  database.function(cosineFunctionName, { deterministic: true }, (stored: unknown, query: unknown) => cosineSimilarity(asFloat32(stored), asFloat32(query)))
  const exact = { mode: 'exact' as const, scoreSql: `${cosineFunctionName}(vector, ?)` }
  if (requested === 'exact') return exact
  try {
    loadSqliteVec(database)
    return { mode: 'sqlite-vec', scoreSql: 'COALESCE(1.0 - vec_distance_cosine(vector, ?), 0.0)' }
  } catch (error) {
    if (requested === 'sqlite-vec') {
      throw new ConfigurationError(
        "[spindle/store-sqlite] `vectorSearch: 'sqlite-vec'` was asked for but the sqlite-vec extension could not be loaded; install the `sqlite-vec` package for this platform or use `vectorSearch: 'auto'`",
        { cause: error },
      )
    }
    return { ...exact, loadError: error }
  }
}

function loadSqliteVec(database: BetterSqlite3.Database): void {
  const vecVersion = (): unknown => database.prepare('SELECT vec_version()').pluck().get()
  try {
    vecVersion()
    return // Loaded already on this connection (an injected database).
  } catch {
    // Not loaded: load it below.
  }
  const require = createRequire(import.meta.url)
  const sqliteVec = require('sqlite-vec') as { load(database: unknown): void }
  sqliteVec.load(database)
  vecVersion()
}

export function toFloat32Blob(vector: readonly number[]): Buffer {
  const floats = Float32Array.from(vector)
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength)
}

export function asFloat32(blob: unknown): Float32Array {
  if (!(blob instanceof Uint8Array)) return new Float32Array(0)
  // Copy: a Buffer from SQLite need not be 4-byte aligned.
  const copy = new Uint8Array(blob.byteLength)
  copy.set(blob)
  return new Float32Array(copy.buffer, 0, Math.floor(blob.byteLength / 4))
}

/** Cosine similarity in double precision, clamped to [-1, 1]; 0 when either vector has no length. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const length = Math.min(a.length, b.length)
  let dot = 0
  let normA = 0
  let normB = 0
  for (let i = 0; i < length; i++) {
    const x = a[i]!
    const y = b[i]!
    dot += x * y
    normA += x * x
    normB += y * y
  }
  if (normA === 0 || normB === 0) return 0
  return Math.max(-1, Math.min(1, dot / (Math.sqrt(normA) * Math.sqrt(normB))))
}
