// In-memory EmbeddingStore: exact cosine top-k per namespace, one vector dimension per namespace.
import { cloneValue } from '../clone-value.js'
import { StoreError } from '../../errors/errors.js'
import type { EmbeddingMatch, EmbeddingQuery, EmbeddingRecord, EmbeddingStore } from '../../spec/embedding-store.js'
import type { JsonObject } from '../../spec/json.js'
import { rankEmbeddingMatches } from '../embedding-search.js'
import { countRecords, evictSession } from './memory-retention.js'

/**
 * The default EmbeddingStore. A query without `namespace` searches the records stored without one. A record whose
 * `metadata.sessionId` names a session is evicted with it (`memoryStores({ retention })`).
 *
 * @example
 * const embeddings = new MemoryEmbeddingStore()
 * await embeddings.upsert([{ id: 'a', vector: [1, 0] }])
 * const [best] = await embeddings.query({ vector: [1, 0.1], topK: 1 })
 */
export class MemoryEmbeddingStore implements EmbeddingStore {
  readonly specificationVersion = 'v1' as const
  readonly #records = new Map<string, EmbeddingRecord>()
  readonly #namespaces = new Map<string | undefined, { dimension: number; count: number }>()
  /** The ids of the records whose `metadata.sessionId` names each session. */
  readonly #bySession = new Map<string, Set<string>>()

  async upsert(records: Array<Omit<EmbeddingRecord, 'metadata'> & { metadata?: JsonObject }>): Promise<void> {
    const copies = cloneValue(records).map((record): EmbeddingRecord => ({
      id: record.id,
      vector: record.vector,
      ...(record.content !== undefined && { content: record.content }),
      ...(record.namespace !== undefined && { namespace: record.namespace }),
      metadata: record.metadata ?? {},
    }))
    // Validate the whole batch before writing any of it.
    const dimensions = new Map<string | undefined, number>()
    for (const record of copies) {
      if (!Array.isArray(record.vector) || record.vector.length === 0 || !record.vector.every(Number.isFinite)) {
        throw new StoreError(`[spindle/store-memory] Embedding "${record.id}" needs a non-empty vector of finite numbers`)
      }
      const replaced = this.#records.get(record.id)
      const current = this.#namespaces.get(record.namespace)
      const alone = current !== undefined && current.count === 1 && replaced?.namespace === record.namespace && replaced !== undefined
      const expected = dimensions.get(record.namespace) ?? (alone ? undefined : current?.dimension)
      if (expected !== undefined && expected !== record.vector.length) {
        throw new StoreError(
          `[spindle/store-memory] Embedding "${record.id}" has ${record.vector.length} dimensions but namespace ${describe(record.namespace)} holds ${expected}; embed with the same model or use another namespace`,
        )
      }
      dimensions.set(record.namespace, record.vector.length)
    }
    for (const record of copies) {
      this.#remove(record.id)
      this.#records.set(record.id, record)
      const { sessionId } = record.metadata
      if (typeof sessionId === 'string') {
        const ids = this.#bySession.get(sessionId)
        if (ids === undefined) this.#bySession.set(sessionId, new Set([record.id]))
        else ids.add(record.id)
      }
      const namespace = this.#namespaces.get(record.namespace)
      if (namespace === undefined) this.#namespaces.set(record.namespace, { dimension: record.vector.length, count: 1 })
      else namespace.count += 1
    }
  }

  async query(query: EmbeddingQuery): Promise<EmbeddingMatch[]> {
    const namespace = this.#namespaces.get(query.namespace)
    if (namespace === undefined) return []
    if (namespace.dimension !== query.vector.length) {
      throw new StoreError(
        `[spindle/store-memory] Query vector has ${query.vector.length} dimensions but namespace ${describe(query.namespace)} holds ${namespace.dimension}; embed the query with the same model`,
      )
    }
    const candidates = [...this.#records.values()].filter((record) => record.namespace === query.namespace)
    return cloneValue(rankEmbeddingMatches(candidates, query))
  }

  async get(id: string): Promise<EmbeddingRecord | undefined> {
    const record = this.#records.get(id)
    return record === undefined ? undefined : cloneValue(record)
  }

  async delete(ids: string[]): Promise<void> {
    for (const id of ids) this.#remove(id)
  }

  async deleteNamespace(namespace: string): Promise<void> {
    for (const record of this.#records.values()) if (record.namespace === namespace) this.#remove(record.id)
  }

  /** Removes the records whose `metadata.sessionId` names the session (retention). */
  [evictSession](sessionId: string): void {
    const ids = this.#bySession.get(sessionId)
    // Deleting the element being visited is safe while iterating a Set.
    if (ids !== undefined) for (const id of ids) this.#remove(id)
  }

  /** Records stored. */
  [countRecords](): { embeddings: number } {
    return { embeddings: this.#records.size }
  }

  #remove(id: string): void {
    const record = this.#records.get(id)
    if (record === undefined) return
    this.#records.delete(id)
    const { sessionId } = record.metadata
    if (typeof sessionId === 'string') {
      const ids = this.#bySession.get(sessionId)
      ids?.delete(id)
      if (ids?.size === 0) this.#bySession.delete(sessionId)
    }
    const namespace = this.#namespaces.get(record.namespace)!
    namespace.count -= 1
    if (namespace.count === 0) this.#namespaces.delete(record.namespace)
  }
}

function describe(namespace: string | undefined): string {
  return namespace === undefined ? '(default)' : `"${namespace}"`
}
