// ArtifactStore on Redis: bytes in a string key named by their sha-256 (stored once), metadata beside them, and
// ranged reads streamed with GETRANGE in 1 MB chunks.
import { NotFoundError, type ArtifactRecord, type ArtifactSource, type ArtifactStore, type PutArtifactOptions } from '@spindle/core'
import { clampArtifactRange, collectArtifactSource } from '@spindle/core/plugin-kit'
import { parse, toStoreError, type RedisContext } from './redis-context.js'

const chunkBytes = 1024 * 1024

export class RedisArtifactStore implements ArtifactStore {
  readonly specificationVersion = 'v1' as const
  constructor(private readonly context: RedisContext) {}

  async put(source: ArtifactSource, options: PutArtifactOptions = {}) {
    const { id, size, bytes } = await collectArtifactSource(source)
    const metaKey = this.context.key('artifact', id)
    const first = await this.head(id)
    // A repeated put keeps the first put's fields and adds only new metadata keys.
    const record: ArtifactRecord = first
      ? { ...first, metadata: { ...structuredClone(options.metadata ?? {}), ...first.metadata } }
      : {
          id,
          size,
          mediaType: options.mediaType ?? 'application/octet-stream',
          ...(options.name !== undefined && { name: options.name }),
          metadata: structuredClone(options.metadata ?? {}),
          createdAt: Date.now(),
        }
    const transaction = this.context.redis.multi().set(metaKey, JSON.stringify(record)).zadd(this.context.key('artifacts'), 'NX', record.createdAt, id)
    if (!first) transaction.set(this.context.key('artifact-bytes', id), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    await transaction.exec()
    return record
  }

  async head(id: string) {
    return parse<ArtifactRecord>(await this.context.redis.get(this.context.key('artifact', id)))
  }

  async *read(id: string, range?: { start?: number; end?: number }): AsyncIterable<Uint8Array> {
    const record = await this.head(id)
    if (record === undefined) throw new NotFoundError(`[spindle-store-redis] artifact "${id}" does not exist`)
    const { start, end } = clampArtifactRange(record.size, range)
    for (let offset = start; offset < end; offset += chunkBytes) {
      const last = Math.min(end, offset + chunkBytes) - 1
      yield await this.context.redis
        .getrangeBuffer(this.context.key('artifact-bytes', id), offset, last)
        .catch((error: unknown) => Promise.reject(toStoreError(error)))
    }
  }

  async delete(id: string) {
    await this.context.redis
      .multi()
      .del(this.context.key('artifact', id), this.context.key('artifact-bytes', id))
      .zrem(this.context.key('artifacts'), id)
      .exec()
  }

  async list(options: { limit?: number; before?: number } = {}) {
    const ids = await this.context.redis.zrevrangebyscore(this.context.key('artifacts'), options.before === undefined ? '+inf' : `(${options.before}`, '-inf')
    const records = (await Promise.all(ids.map((id) => this.head(id)))).filter((record): record is ArtifactRecord => record !== undefined)
    return options.limit === undefined ? records : records.slice(0, options.limit)
  }
}
