// SQLite ArtifactStore: content-addressed (sha-256) blobs in fixed-size chunk rows, streamed in and out.
import { createHash, randomUUID } from 'node:crypto'
import {
  NotFoundError,
  StoreError,
  type ArtifactRecord,
  type ArtifactSource,
  type ArtifactStore,
  type JsonObject,
  type PutArtifactOptions,
} from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'
import { withSqliteErrors } from './map-sqlite-error.js'
import { StatementCache } from './statement-cache.js'
import { fromJsonText, sqlLimit, toJsonText } from './sqlite-values.js'

/** Bytes per chunk row: big enough to keep row counts low, small enough to stream without holding a whole blob. */
export const artifactChunkSize = 256 * 1024

/** Uploads a crashed process left behind are removed when a store opens this long after they started. */
const staleUploadMs = 24 * 60 * 60 * 1000

interface ArtifactRow {
  id: string
  blob_id: string
  size: number
  chunk_size: number
  data: string
  created_at: number
}

/** Stored in `artifacts.data`, as JSON so that names and metadata round-trip exactly. */
interface ArtifactData {
  mediaType: string
  name?: string
  metadata: JsonObject
}

/**
 * Artifacts in SQLite. `put` hashes while it writes chunks under a private upload id, then, in one transaction,
 * either publishes them under the sha-256 id or — when that content exists already — drops them and merges
 * the metadata (the first put's keys win). Reads stream chunk rows, so a range costs only the chunks it covers.
 *
 * @example
 * const artifacts = new SqliteArtifactStore(database)
 * const { id } = await artifacts.put('hello', { mediaType: 'text/plain' })
 * for await (const chunk of artifacts.read(id, { start: 1 })) process.stdout.write(chunk)
 */
export class SqliteArtifactStore implements ArtifactStore {
  readonly specificationVersion = 'v1' as const
  readonly #database: BetterSqlite3.Database
  readonly #sql: StatementCache

  constructor(database: BetterSqlite3.Database) {
    this.#database = database
    this.#sql = new StatementCache(database)
    if (!database.readonly) this.#removeStaleUploads()
  }

  async put(source: ArtifactSource, options: PutArtifactOptions = {}): Promise<ArtifactRecord> {
    const blobId = randomUUID()
    const hash = createHash('sha256')
    let size = 0
    let index = 0
    let pending: Uint8Array[] = []
    let pendingBytes = 0
    withSqliteErrors('start an artifact upload', () => {
      this.#sql.get('INSERT INTO artifact_uploads (blob_id, started_at) VALUES (?, ?)').run(blobId, Date.now())
    })
    const writeChunk = (bytes: Uint8Array): void => {
      withSqliteErrors('write an artifact chunk', () => {
        this.#sql.get('INSERT INTO artifact_chunks (blob_id, idx, data) VALUES (?, ?, ?)').run(blobId, index, bytes)
      })
      index += 1
    }
    const flushFull = (): void => {
      if (pendingBytes < artifactChunkSize) return
      const joined = concat(pending, pendingBytes)
      let offset = 0
      for (; offset + artifactChunkSize <= joined.byteLength; offset += artifactChunkSize) {
        writeChunk(joined.subarray(offset, offset + artifactChunkSize))
      }
      pending = offset < joined.byteLength ? [joined.slice(offset)] : []
      pendingBytes = joined.byteLength - offset
    }
    try {
      for await (const chunk of sourceChunks(source)) {
        if (!(chunk instanceof Uint8Array)) {
          throw new StoreError('[spindle/store-sqlite] An artifact stream must yield Uint8Array chunks; encode strings first')
        }
        if (chunk.byteLength === 0) continue
        hash.update(chunk)
        size += chunk.byteLength
        // Copy: the caller may reuse its buffer after yielding it.
        pending.push(chunk.slice())
        pendingBytes += chunk.byteLength
        flushFull()
      }
      if (pendingBytes > 0) writeChunk(concat(pending, pendingBytes))
    } catch (error) {
      this.#discardUpload(blobId)
      throw error
    }
    const id = hash.digest('hex')
    return withSqliteErrors(`store artifact "${id}"`, () =>
      this.#database
        .transaction((): ArtifactRecord => {
          const existing = this.#row(id)
          if (existing !== undefined) {
            this.#deleteBlob(blobId)
            const data = fromJsonText<ArtifactData>(existing.data)
            data.metadata = { ...options.metadata, ...data.metadata }
            const text = toJsonText(data)
            this.#sql.get('UPDATE artifacts SET data = ? WHERE id = ?').run(text, id)
            return toRecord({ ...existing, data: text })
          }
          const data: ArtifactData = {
            mediaType: options.mediaType ?? (typeof source === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream'),
            ...(options.name !== undefined && { name: options.name }),
            metadata: options.metadata ?? {},
          }
          const row: ArtifactRow = { id, blob_id: blobId, size, chunk_size: artifactChunkSize, data: toJsonText(data), created_at: Date.now() }
          this.#sql
            .get('INSERT INTO artifacts (id, blob_id, size, chunk_size, data, created_at) VALUES (?, ?, ?, ?, ?, ?)')
            .run(row.id, row.blob_id, row.size, row.chunk_size, row.data, row.created_at)
          this.#sql.get('DELETE FROM artifact_uploads WHERE blob_id = ?').run(blobId)
          return toRecord(row)
        })
        .immediate(),
    )
  }

  async head(id: string): Promise<ArtifactRecord | undefined> {
    return withSqliteErrors(`read artifact "${id}"`, () => {
      const row = this.#row(id)
      return row === undefined ? undefined : toRecord(row)
    })
  }

  read(id: string, range?: { start?: number; end?: number }): AsyncIterable<Uint8Array> {
    return this.#readChunks(id, range)
  }

  /** Reads one chunk row at a time, so memory stays bounded by the chunk size whatever the artifact's size. */
  async *#readChunks(id: string, range?: { start?: number; end?: number }): AsyncGenerator<Uint8Array> {
    const row = withSqliteErrors(`read artifact "${id}"`, () => this.#row(id))
    if (row === undefined) {
      throw new NotFoundError(`[spindle/store-sqlite] Artifact "${id}" does not exist; put it first or check the id`)
    }
    const start = Math.min(row.size, Math.max(0, Math.floor(range?.start ?? 0)))
    const end = Math.min(row.size, Math.max(start, Math.floor(range?.end ?? row.size)))
    const chunkStatement = this.#sql.get('SELECT data FROM artifact_chunks WHERE blob_id = ? AND idx = ?')
    let position = start
    while (position < end) {
      const index = Math.floor(position / row.chunk_size)
      const chunkStart = index * row.chunk_size
      const data = withSqliteErrors(`read artifact "${id}"`, () => chunkStatement.pluck().get(row.blob_id, index)) as Buffer | undefined
      if (data === undefined) {
        throw new NotFoundError(`[spindle/store-sqlite] Artifact "${id}" was deleted while it was being read`)
      }
      const from = position - chunkStart
      const to = Math.min(data.byteLength, end - chunkStart)
      if (to <= from) {
        throw new StoreError(`[spindle/store-sqlite] Artifact "${id}" is truncated in the database (chunk ${index}); delete it and put it again`)
      }
      const out = new Uint8Array(to - from)
      out.set(data.subarray(from, to))
      yield out
      position = chunkStart + to
    }
  }

  async delete(id: string): Promise<void> {
    withSqliteErrors(`delete artifact "${id}"`, () =>
      this.#database
        .transaction(() => {
          const row = this.#row(id)
          if (row === undefined) return
          this.#sql.get('DELETE FROM artifacts WHERE id = ?').run(id)
          this.#deleteBlob(row.blob_id)
        })
        .immediate(),
    )
  }

  async list(options: { limit?: number; before?: number } = {}): Promise<ArtifactRecord[]> {
    return withSqliteErrors('list artifacts', () => {
      const rows = this.#sql
        .get('SELECT * FROM artifacts WHERE created_at < ? ORDER BY created_at DESC, id DESC LIMIT ?')
        .all(options.before ?? Number.MAX_SAFE_INTEGER, sqlLimit(options.limit)) as ArtifactRow[]
      return rows.map(toRecord)
    })
  }

  #row(id: string): ArtifactRow | undefined {
    return this.#sql.get('SELECT * FROM artifacts WHERE id = ?').get(id) as ArtifactRow | undefined
  }

  #deleteBlob(blobId: string): void {
    this.#sql.get('DELETE FROM artifact_chunks WHERE blob_id = ?').run(blobId)
    this.#sql.get('DELETE FROM artifact_uploads WHERE blob_id = ?').run(blobId)
  }

  #discardUpload(blobId: string): void {
    try {
      this.#database.transaction(() => this.#deleteBlob(blobId)).immediate()
    } catch {
      // Best effort: a leftover upload is removed by #removeStaleUploads on a later open.
    }
  }

  #removeStaleUploads(): void {
    withSqliteErrors('remove abandoned artifact uploads', () =>
      this.#database
        .transaction(() => {
          const stale = this.#sql
            .get('SELECT blob_id FROM artifact_uploads WHERE started_at < ?')
            .pluck()
            .all(Date.now() - staleUploadMs) as string[]
          for (const blobId of stale) this.#deleteBlob(blobId)
        })
        .immediate(),
    )
  }
}

async function* sourceChunks(source: ArtifactSource): AsyncIterable<Uint8Array> {
  if (typeof source === 'string') yield new TextEncoder().encode(source)
  else if (source instanceof Uint8Array) yield source
  else yield* source
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

function toRecord(row: ArtifactRow): ArtifactRecord {
  const data = fromJsonText<ArtifactData>(row.data)
  return {
    id: row.id,
    size: row.size,
    mediaType: data.mediaType,
    ...(data.name !== undefined && { name: data.name }),
    metadata: data.metadata,
    createdAt: row.created_at,
  }
}
