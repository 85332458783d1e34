// EmbeddingStore on Redis: one JSON value per vector, a set of ids and a fixed dimension per namespace; queries
// are an exact cosine scan of the namespace (fine for an example; use RediSearch vectors at scale).
import { StoreError, type EmbeddingQuery, type EmbeddingRecord, type EmbeddingStore, type JsonObject } from '@spindle/core'
import { rankEmbeddingMatches } from '@spindle/core/plugin-kit'
import { parse, type RedisContext } from './redis-context.js'

type Input = Omit<EmbeddingRecord, 'metadata'> & { metadata?: JsonObject }

export class RedisEmbeddingStore implements EmbeddingStore {
  readonly specificationVersion = 'v1' as const
  constructor(private readonly context: RedisContext) {}

  // The default namespace gets its own key name, so it never collides with a namespace called "".
  #members = (namespace?: string) => (namespace === undefined ? this.context.key('vectors-default') : this.context.key('vectors', namespace))
  #dimension = (namespace?: string) => (namespace === undefined ? this.context.key('dimension-default') : this.context.key('dimension', namespace))

  async upsert(records: Input[]) {
    const dimensions = new Map<string | undefined, number>()
    for (const record of records) {
      // The first vector of a namespace fixes its dimension (SET NX); every other one must match it.
      const expected =
        dimensions.get(record.namespace) ??
        Number((await this.context.redis.set(this.#dimension(record.namespace), record.vector.length, 'NX', 'GET')) ?? record.vector.length)
      if (record.vector.length !== expected) {
        throw new StoreError(
          `[spindle-store-redis] vector "${record.id}" has ${record.vector.length} dimensions but namespace ${JSON.stringify(record.namespace ?? null)} holds ${expected}; embed with the same model, or use another namespace`,
        )
      }
      dimensions.set(record.namespace, expected)
    }
    const previous = await this.#read(records.map((record) => record.id))
    const transaction = this.context.redis.multi()
    for (const [index, record] of records.entries()) {
      const old = previous[index]
      if (old !== undefined) transaction.srem(this.#members(old.namespace), old.id)
      const stored: EmbeddingRecord = { ...structuredClone(record), metadata: structuredClone(record.metadata ?? {}) }
      transaction.set(this.context.key('vector', record.id), JSON.stringify(stored)).sadd(this.#members(record.namespace), record.id)
    }
    await transaction.exec()
  }

  async query(query: EmbeddingQuery) {
    const ids = await this.context.redis.smembers(this.#members(query.namespace))
    return rankEmbeddingMatches(
      (await this.#read(ids)).filter((record) => record !== undefined),
      query,
    )
  }

  async get(id: string) {
    return (await this.#read([id]))[0]
  }

  async delete(ids: string[]) {
    const transaction = this.context.redis.multi()
    for (const record of await this.#read(ids))
      if (record) transaction.del(this.context.key('vector', record.id)).srem(this.#members(record.namespace), record.id)
    await transaction.exec()
  }

  async deleteNamespace(namespace: string) {
    const ids = await this.context.redis.smembers(this.#members(namespace))
    await this.context.redis.del(this.#members(namespace), this.#dimension(namespace), ...ids.map((id) => this.context.key('vector', id)))
  }

  async #read(ids: string[]): Promise<Array<EmbeddingRecord | undefined>> {
    if (ids.length === 0) return []
    return (await this.context.redis.mget(ids.map((id) => this.context.key('vector', id)))).map((text) => parse<EmbeddingRecord>(text))
  }
}
