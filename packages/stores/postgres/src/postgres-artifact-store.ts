// ArtifactStore on PostgreSQL: sha-256 addressed blobs in fixed-size `bytea` chunks, streamed in and out, de-duplicated.
import { createHash, randomUUID } from 'node:crypto'
import { type ArtifactRecord, type ArtifactSource, type ArtifactStore, type JsonObject, NotFoundError, type PutArtifactOptions } from '@spindle/core'
import { fromJsonb, fromText, toJsonbText, toText } from './jsonb-text.js'
import { mapPostgresError } from './map-postgres-error.js'
import type { SqlDatabase } from './sql-database.js'
import { beforeParameter, limitParameter } from './list-bounds.js'

interface ArtifactRow {
  id: string
  size: string | number
  chunk_size: number
  media_type: string
  name: string | null
  metadata: JsonObject
  created_at: string | number
  created?: boolean
}

/** Chunk size of new artifacts; stored per artifact, so it can change without a migration. */
const defaultChunkSize = 256 * 1024

/** Uploads a killed process left behind are removed by `removeStaleUploads()` this long after they started. */
export const staleUploadMs = 24 * 60 * 60 * 1000

/**
 * Bytes are written while the source streams in (under a temporary upload id, never held whole in memory),
 * then re-keyed to their sha-256 in one transaction; the same content put twice keeps one copy. Each upload in
 * progress has a row in `artifact_uploads`, so that the chunks of a process killed mid-put can be found and
 * removed (`removeStaleUploads()`, run by `migrate()`).
 *
 * @example
 * const artifacts = new PostgresArtifactStore(poolDatabase(pool), '"spindle"')
 * const { id } = await artifacts.put('hello', { mediaType: 'text/plain' })
 */
export class PostgresArtifactStore implements ArtifactStore {
  readonly specificationVersion = 'v1' as const
  readonly #database: SqlDatabase
  readonly #s: string
  readonly #chunkSize: number

  constructor(database: SqlDatabase, schema: string, options: { chunkSize?: number } = {}) {
    this.#database = database
    this.#s = schema
    this.#chunkSize = options.chunkSize ?? defaultChunkSize
  }

  async put(source: ArtifactSource, options: PutArtifactOptions = {}): Promise<ArtifactRecord> {
    const uploadId = `upload:${randomUUID()}`
    const hash = createHash('sha256')
    let size = 0
    let index = 0
    const pending = new Uint8Array(this.#chunkSize)
    let filled = 0
    const flush = async (): Promise<void> => {
      if (filled === 0) return
      await this.#database.query(`INSERT INTO ${this.#s}.artifact_chunks (blob_id, index, data) VALUES ($1, $2, $3)`, [
        uploadId,
        index,
        Buffer.from(pending.subarray(0, filled)),
      ])
      index += 1
      filled = 0
    }
    try {
      await this.#database.query(`INSERT INTO ${this.#s}.artifact_uploads (blob_id, started_at) VALUES ($1, $2)`, [uploadId, Date.now()])
      for await (const chunk of sourceChunks(source)) {
        if (!(chunk instanceof Uint8Array)) throw new TypeError('[spindle/store-postgres] an artifact stream must yield Uint8Array chunks')
        hash.update(chunk)
        size += chunk.byteLength
        let offset = 0
        while (offset < chunk.byteLength) {
          const take = Math.min(this.#chunkSize - filled, chunk.byteLength - offset)
          pending.set(chunk.subarray(offset, offset + take), filled)
          filled += take
          offset += take
          if (filled === this.#chunkSize) await flush()
        }
      }
      await flush()
      const id = hash.digest('hex')
      return await this.#database.transaction(async (transaction) => {
        const { rows } = await transaction.query<ArtifactRow>(
          `INSERT INTO ${this.#s}.artifacts AS a (id, size, chunk_size, media_type, name, metadata, created_at)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
           ON CONFLICT (id) DO UPDATE SET metadata = EXCLUDED.metadata || a.metadata, name = COALESCE(a.name, EXCLUDED.name)
           RETURNING a.*, (a.xmax = 0) AS created`,
          [
            id,
            size,
            this.#chunkSize,
            toText(options.mediaType ?? (typeof source === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream')),
            toText(options.name ?? null),
            toJsonbText(options.metadata ?? {}),
            Date.now(),
          ],
        )
        const row = rows[0]!
        await transaction.query(`DELETE FROM ${this.#s}.artifact_uploads WHERE blob_id = $1`, [uploadId])
        if (row.created === true) {
          await transaction.query(`UPDATE ${this.#s}.artifact_chunks SET blob_id = $2 WHERE blob_id = $1`, [uploadId, id])
        } else {
          await transaction.query(`DELETE FROM ${this.#s}.artifact_chunks WHERE blob_id = $1`, [uploadId])
        }
        return toArtifact(row)
      })
    } catch (error) {
      // Best effort: when this fails too (the connection is gone), removeStaleUploads() removes them later.
      await this.#discardUpload(uploadId).catch(() => {})
      throw mapPostgresError(error, 'storing an artifact')
    }
  }

  /**
   * Removes the chunks of uploads that started more than a day ago and never finished (their process was killed
   * mid-put, or lost its connection before it could clean up). `migrate()` runs it.
   */
  async removeStaleUploads(now = Date.now()): Promise<number> {
    try {
      const { rows } = await this.#database.query<{ blob_id: string }>(`SELECT blob_id FROM ${this.#s}.artifact_uploads WHERE started_at < $1`, [
        now - staleUploadMs,
      ])
      for (const { blob_id: uploadId } of rows) await this.#discardUpload(uploadId)
      return rows.length
    } catch (error) {
      throw mapPostgresError(error, 'removing abandoned artifact uploads')
    }
  }

  async #discardUpload(uploadId: string): Promise<void> {
    await this.#database.transaction(async (transaction) => {
      await transaction.query(`DELETE FROM ${this.#s}.artifact_chunks WHERE blob_id = $1`, [uploadId])
      await transaction.query(`DELETE FROM ${this.#s}.artifact_uploads WHERE blob_id = $1`, [uploadId])
    })
  }

  async head(id: string): Promise<ArtifactRecord | undefined> {
    try {
      const { rows } = await this.#database.query<ArtifactRow>(`SELECT * FROM ${this.#s}.artifacts WHERE id = $1`, [id])
      return rows[0] === undefined ? undefined : toArtifact(rows[0])
    } catch (error) {
      throw mapPostgresError(error, `reading artifact "${id}"`)
    }
  }

  read(id: string, range?: { start?: number; end?: number }): AsyncIterable<Uint8Array> {
    const database = this.#database
    const s = this.#s
    return {
      async *[Symbol.asyncIterator]() {
        let row: ArtifactRow | undefined
        try {
          ;({
            rows: [row],
          } = await database.query<ArtifactRow>(`SELECT size, chunk_size FROM ${s}.artifacts WHERE id = $1`, [id]))
        } catch (error) {
          throw mapPostgresError(error, `reading artifact "${id}"`)
        }
        if (row === undefined) throw new NotFoundError(`[spindle/store-postgres] artifact "${id}" does not exist; put it first or check the id`)
        const size = Number(row.size)
        const chunkSize = Number(row.chunk_size)
        const start = Math.min(size, Math.max(0, Math.floor(range?.start ?? 0)))
        const end = Math.min(size, Math.max(start, Math.floor(range?.end ?? size)))
        // One chunk per round trip keeps memory bounded whatever the artifact's size.
        for (let index = Math.floor(start / chunkSize); index * chunkSize < end; index++) {
          let data: Uint8Array | undefined
          try {
            const { rows } = await database.query<{ data: Uint8Array }>(`SELECT data FROM ${s}.artifact_chunks WHERE blob_id = $1 AND index = $2`, [id, index])
            data = rows[0]?.data
          } catch (error) {
            throw mapPostgresError(error, `reading artifact "${id}"`)
          }
          if (data === undefined) throw new NotFoundError(`[spindle/store-postgres] artifact "${id}" was deleted while it was being read`)
          const chunkStart = index * chunkSize
          const from = Math.max(0, start - chunkStart)
          const to = Math.min(data.byteLength, end - chunkStart)
          yield new Uint8Array(data.buffer.slice(data.byteOffset + from, data.byteOffset + to))
        }
      },
    }
  }

  async delete(id: string): Promise<void> {
    try {
      await this.#database.transaction(async (transaction) => {
        await transaction.query(`DELETE FROM ${this.#s}.artifacts WHERE id = $1`, [id])
        await transaction.query(`DELETE FROM ${this.#s}.artifact_chunks WHERE blob_id = $1`, [id])
      })
    } catch (error) {
      throw mapPostgresError(error, `deleting artifact "${id}"`)
    }
  }

  async list(options: { limit?: number; before?: number } = {}): Promise<ArtifactRecord[]> {
    try {
      const { rows } = await this.#database.query<ArtifactRow>(
        `SELECT * FROM ${this.#s}.artifacts WHERE ($1::bigint IS NULL OR created_at < $1) ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $2`,
        [beforeParameter(options.before), limitParameter(options.limit)],
      )
      return rows.map(toArtifact)
    } catch (error) {
      throw mapPostgresError(error, 'listing artifacts')
    }
  }
}

async function* sourceChunks(source: ArtifactSource): AsyncIterable<Uint8Array> {
  if (typeof source === 'string') yield new TextEncoder().encode(source)
  else if (source instanceof Uint8Array) yield source
  else yield* source
}

function toArtifact(row: ArtifactRow): ArtifactRecord {
  return {
    id: row.id,
    size: Number(row.size),
    mediaType: fromText(row.media_type),
    ...(row.name !== null && { name: fromText(row.name) }),
    metadata: fromJsonb(row.metadata),
    createdAt: Number(row.created_at),
  }
}
