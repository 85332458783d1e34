// EmbeddingStore, spec v1: vectors with metadata and top-k cosine search with filters.
import type { JsonObject, JsonPrimitive } from './json.js'

/** A vector with its id, namespace, text and metadata. */
export interface EmbeddingRecord {
  id: string
  vector: number[]
  content?: string
  /** Isolates sets of vectors (e.g. one per session or per user). */
  namespace?: string
  metadata: JsonObject
}

/** A record found by `EmbeddingStore.query`, with its cosine similarity `score`. */
export interface EmbeddingMatch extends EmbeddingRecord {
  /** Cosine similarity in [-1, 1]. */
  score: number
}

/** A similarity query: the vector, the namespace, how many results (`topK`), a minimum score and metadata filters. */
export interface EmbeddingQuery {
  vector: number[]
  topK: number
  namespace?: string
  /** Every key must equal (or, for an array, be one of) the metadata value. */
  filter?: Record<string, JsonPrimitive | JsonPrimitive[]>
  minScore?: number
}

/** Spec v1: vectors by namespace with exact cosine top-k search (memory and recall build on it). Check an implementation with `describeEmbeddingStore` from `@spindle/testing`. */
export interface EmbeddingStore {
  readonly specificationVersion: 'v1'
  /** Inserts or replaces by id. Throws when a vector's dimension differs from the namespace's. */
  upsert(records: Array<Omit<EmbeddingRecord, 'metadata'> & { metadata?: JsonObject }>): Promise<void>
  /** Best first; ties broken by id. */
  query(query: EmbeddingQuery): Promise<EmbeddingMatch[]>
  get(id: string): Promise<EmbeddingRecord | undefined>
  delete(ids: string[]): Promise<void>
  /** Deletes every record of a namespace. */
  deleteNamespace(namespace: string): Promise<void>
}
