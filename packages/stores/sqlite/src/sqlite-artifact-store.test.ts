import { createHash } from 'node:crypto'
import { NotFoundError } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'
import { artifactChunkSize, type SqliteArtifactStore } from './index.js'

/** Deterministic bytes, different in every position modulo a large prime. */
function patternBytes(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size)
  let state = seed
  for (let i = 0; i < size; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    bytes[i] = state >>> 16
  }
  return bytes
}

async function* inPieces(bytes: Uint8Array, pieceSize: number): AsyncIterable<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += pieceSize) yield bytes.subarray(offset, offset + pieceSize)
}

async function readAll(store: SqliteArtifactStore, id: string, range?: { start?: number; end?: number }) {
  const chunks: Uint8Array[] = []
  for await (const chunk of store.read(id, range)) chunks.push(chunk)
  return { chunks, bytes: Buffer.concat(chunks) }
}

describe('SqliteArtifactStore', () => {
  it('streams a 10 MB artifact in (odd-sized pieces) and out, hashed as sha-256, in bounded chunks', async () => {
    const path = tempDatabasePath()
    const stores = openStores({ path })
    const bytes = patternBytes(10 * 1024 * 1024 + 17)
    const record = await stores.artifacts.put(inPieces(bytes, 65_537), { mediaType: 'application/x-test', name: 'big.bin' })
    expect(record.id).toBe(createHash('sha256').update(bytes).digest('hex'))
    expect(record.size).toBe(bytes.byteLength)
    stores.close()
    const reopened = openStores({ path })
    const { chunks, bytes: read } = await readAll(reopened.artifacts, record.id)
    expect(Math.max(...chunks.map((chunk) => chunk.byteLength))).toBeLessThanOrEqual(artifactChunkSize)
    expect(chunks.length).toBe(Math.ceil(bytes.byteLength / artifactChunkSize))
    expect(Buffer.compare(read, bytes)).toBe(0)
    // A range across chunk boundaries reads only what it needs.
    const start = artifactChunkSize * 3 - 5
    const end = artifactChunkSize * 5 + 9
    const range = await readAll(reopened.artifacts, record.id, { start, end })
    expect(Buffer.compare(range.bytes, bytes.subarray(start, end))).toBe(0)
    expect(range.chunks.length).toBe(4) // the tail of chunk 2, chunks 3 and 4, the head of chunk 5
  }, 60_000)

  it('de-duplicates identical content, keeps the first metadata and adds new keys', async () => {
    const { artifacts, database } = openStores({ path: tempDatabasePath() })
    const first = await artifacts.put('same bytes', { metadata: { owner: 'a', note: 'first' } })
    const second = await artifacts.put(inPieces(new TextEncoder().encode('same bytes'), 3), { metadata: { owner: 'b', extra: 1 } })
    expect(second.id).toBe(first.id)
    expect(second.metadata).toEqual({ owner: 'a', note: 'first', extra: 1 })
    expect(first.mediaType).toBe('text/plain; charset=utf-8')
    expect(database.prepare('SELECT count(*) FROM artifacts').pluck().get()).toBe(1)
    expect(database.prepare('SELECT count(*) FROM artifact_chunks').pluck().get()).toBe(1)
    expect(database.prepare('SELECT count(*) FROM artifact_uploads').pluck().get()).toBe(0)
  })

  it('reads ranges, clamps them, and handles an empty artifact', async () => {
    const { artifacts } = openStores({ path: tempDatabasePath() })
    const { id } = await artifacts.put(new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))
    expect([...(await readAll(artifacts, id, { start: 2, end: 5 })).bytes]).toEqual([2, 3, 4])
    expect([...(await readAll(artifacts, id, { start: 8, end: 100 })).bytes]).toEqual([8, 9])
    expect([...(await readAll(artifacts, id, { start: 7, end: 3 })).bytes]).toEqual([])
    const empty = await artifacts.put(new Uint8Array(0))
    expect(empty.size).toBe(0)
    expect(empty.id).toBe(createHash('sha256').digest('hex'))
    expect((await readAll(artifacts, empty.id)).chunks).toEqual([])
  })

  it('throws NotFoundError for an unknown id, deletes bytes with the record, lists newest first', async () => {
    const { artifacts, database } = openStores({ path: tempDatabasePath() })
    await expect(readAll(artifacts, 'f'.repeat(64))).rejects.toBeInstanceOf(NotFoundError)
    const a = await artifacts.put('a')
    await new Promise((resolve) => setTimeout(resolve, 3))
    const b = await artifacts.put('b', { name: 'n\uD800\u0000', metadata: { k: '\uDC00' } })
    expect((await artifacts.list()).map((r) => r.id)).toEqual([b.id, a.id])
    expect((await artifacts.list({ limit: 1 })).map((r) => r.id)).toEqual([b.id])
    expect((await artifacts.list({ before: b.createdAt })).map((r) => r.id)).toEqual([a.id])
    expect(await artifacts.head(b.id)).toEqual(b)
    expect(b.name).toBe('n\uD800\u0000')
    await artifacts.delete(a.id)
    expect(await artifacts.head(a.id)).toBeUndefined()
    expect(database.prepare('SELECT count(*) FROM artifact_chunks').pluck().get()).toBe(1)
  })

  it('leaves nothing behind when the source stream fails midway', async () => {
    const { artifacts, database } = openStores({ path: tempDatabasePath() })
    async function* failing(): AsyncIterable<Uint8Array> {
      yield patternBytes(artifactChunkSize * 2)
      throw new Error('source broke')
    }
    await expect(artifacts.put(failing())).rejects.toThrow('source broke')
    expect(database.prepare('SELECT count(*) FROM artifact_chunks').pluck().get()).toBe(0)
    expect(database.prepare('SELECT count(*) FROM artifact_uploads').pluck().get()).toBe(0)
    expect(await artifacts.list()).toEqual([])
  })
})
