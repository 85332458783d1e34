// Conformance checks of ArtifactStore, spec v1: sha-256 ids, streaming in and out, ranges, de-duplication, listing.
import { createHash } from 'node:crypto'
import { type ArtifactStore } from '@spindle/core'
import { readArtifactBytes } from '@spindle/core/plugin-kit'
import { expect } from 'vitest'
import { artifactCopyOutRules } from './copy-out-rules.js'
import type { ConformanceChecks } from './harness.js'
import { rejection, rule } from './rule.js'
import { expectBytes, expectExactJson, tick, unicodeFix, unicodeOutcome, unicodeSamples } from './samples.js'

/** Deterministic pseudo-random bytes (xorshift), so large artifacts need no fixture files. */
export function patternBytes(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size)
  let state = seed * 2654435761 || 1
  for (let i = 0; i < size; i++) {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    bytes[i] = state & 0xff
  }
  return bytes
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

async function* chunked(bytes: Uint8Array, sizes: number[]): AsyncIterable<Uint8Array> {
  for (let offset = 0, i = 0; offset < bytes.byteLength; i++) {
    const size = sizes[i % sizes.length]
    yield bytes.slice(offset, offset + size)
    offset += size
  }
}

/**
 * The checks of the ArtifactStore conformance kit, by name; `describeArtifactStore` runs each as a test. A check fails with a
 * `ConformanceError` naming the rule broken and how to fix it. Run one alone to narrow a failure:
 *
 * @example
 * await artifactStoreRules['artifact.put-head-read']({ create: () => createMyStore() })
 */
export const artifactStoreRules: ConformanceChecks<ArtifactStore> = {
  async 'artifact.put-head-read'({ create }) {
    const store = await create()
    const bytes = patternBytes(1000)
    const record = await store.put(bytes, { mediaType: 'application/x-test', name: 'data.bin', metadata: { source: 'test' } })
    await rule(
      'artifact.put.content-address',
      'put must return id = lowercase hex sha-256 of the bytes, the byte size, and the given mediaType/name/metadata',
      () => {
        expect(record).toMatchObject({ id: sha256(bytes), size: 1000, mediaType: 'application/x-test', name: 'data.bin', metadata: { source: 'test' } })
        expect(typeof record.createdAt).toBe('number')
      },
    )
    await rule('artifact.head', 'head must return the record for a stored id, undefined for an unknown one', async () => {
      expect(await store.head(record.id)).toEqual(record)
      expect(await store.head(sha256(new Uint8Array([9])))).toBeUndefined()
    })
    await rule('artifact.read', 'read(id) must stream back exactly the stored bytes', async () => {
      expectBytes(await readArtifactBytes(store, record.id), bytes)
    })
    await rule('artifact.put.string', 'a string source must be stored as its UTF-8 bytes', async () => {
      const text = await store.put('héllo wörld')
      const utf8 = new TextEncoder().encode('héllo wörld')
      expect(text).toMatchObject({ id: sha256(utf8), size: utf8.byteLength })
      expectBytes(await readArtifactBytes(store, text.id), utf8)
    })
    await rule('artifact.read.unknown', 'reading an unknown id must throw NotFoundError (when the stream is consumed, at the latest)', () =>
      rejection(() => readArtifactBytes(store, sha256(new Uint8Array([1, 2]))), { code: 'not_found' }),
    )
  },

  async 'artifact.read.range'({ create }) {
    const store = await create()
    const bytes = patternBytes(1000, 7)
    const { id } = await store.put(bytes)
    const range = (start?: number, end?: number) => readArtifactBytes(store, id, { ...(start !== undefined && { start }), ...(end !== undefined && { end }) })
    await rule(
      'artifact.read.range',
      'read(id, { start, end }) must stream exactly bytes [start, end): start defaults to 0, end to the size, an end past the size is clamped',
      async () => {
        expectBytes(await range(10, 20), bytes.slice(10, 20))
        expectBytes(await range(990), bytes.slice(990))
        expectBytes(await range(undefined, 5), bytes.slice(0, 5))
        expectBytes(await range(995, 5000), bytes.slice(995))
        expectBytes(await range(5, 5), new Uint8Array(0))
      },
    )
  },

  async 'artifact.dedupe'({ create }) {
    const store = await create()
    const bytes = patternBytes(300_000, 3)
    const first = await store.put(bytes, { mediaType: 'application/x-first', metadata: { a: 1, b: 1 } })
    await tick()
    const second = await store.put(chunked(bytes, [65_536, 1000, 7]), { mediaType: 'application/x-second', metadata: { b: 2, c: 3 } })
    await rule(
      'artifact.dedupe',
      'putting the same bytes again (as bytes or a stream) must return the same id and store them once (INSERT … ON CONFLICT on the sha-256)',
      async () => {
        expect(second.id).toBe(first.id)
        expect((await store.list()).map((record) => record.id)).toEqual([first.id])
        expectBytes(await readArtifactBytes(store, first.id), bytes)
      },
    )
    await rule('artifact.dedupe.metadata', 'a repeated put must keep the first put’s metadata and add only new keys ({ ...new, ...first })', async () => {
      expect(second.metadata).toEqual({ a: 1, b: 1, c: 3 })
      expect((await store.head(first.id))?.metadata).toEqual({ a: 1, b: 1, c: 3 })
      expect((await store.head(first.id))?.mediaType).toBe('application/x-first')
    })
  },

  async 'artifact.large'({ create }) {
    const store = await create()
    const size = 10 * 1024 * 1024
    const bytes = patternBytes(size, 11)
    const record = await rule(
      'artifact.large.put',
      'put must accept a 10 MB stream without buffering limits (stream into a temp file / large object, or collect chunks)',
      () => store.put(chunked(bytes, [1_048_576, 333_333, 65_536]), { mediaType: 'application/octet-stream' }),
    )
    await rule('artifact.large.sha256', 'the id of a streamed 10 MB artifact must be the sha-256 of all its bytes and size must be 10485760', () => {
      expect(record.id).toBe(sha256(bytes))
      expect(record.size).toBe(size)
    })
    await rule('artifact.large.read', 'read must stream all 10 MB back unchanged', async () => {
      const hash = createHash('sha256')
      let total = 0
      for await (const chunk of store.read(record.id)) {
        if (!(chunk instanceof Uint8Array)) throw new Error(`read yielded ${typeof chunk}, not a Uint8Array`)
        hash.update(chunk)
        total += chunk.byteLength
      }
      expect(total).toBe(size)
      expect(hash.digest('hex')).toBe(record.id)
    })
    await rule('artifact.large.range', 'ranges must be exact across internal chunk boundaries of a large artifact', async () => {
      const start = 5 * 1024 * 1024 - 17
      expectBytes(await readArtifactBytes(store, record.id, { start, end: start + 200_000 }), bytes.slice(start, start + 200_000))
      expectBytes(await readArtifactBytes(store, record.id, { start: size - 3 }), bytes.slice(size - 3))
    })
  },

  async 'artifact.list-delete'({ create }) {
    const store = await create()
    const ids: string[] = []
    for (let i = 0; i < 4; i++) {
      ids.push((await store.put(`artifact ${i}`)).id)
      await tick()
    }
    await rule(
      'artifact.list',
      'list must return newest first (ORDER BY createdAt DESC), honour limit, and `before` must keep only records created strictly before it',
      async () => {
        const all = await store.list()
        expect(all.map((record) => record.id)).toEqual([...ids].reverse())
        const page = await store.list({ limit: 2 })
        expect(page.map((record) => record.id)).toEqual([ids[3], ids[2]])
        expect((await store.list({ before: page[1].createdAt })).map((record) => record.id)).toEqual([ids[1], ids[0]])
      },
    )
    await rule('artifact.delete', 'delete must remove the record and its bytes; head → undefined, read → NotFoundError; unknown ids are ignored', async () => {
      await store.delete(ids[1])
      await store.delete(sha256(new Uint8Array([42])))
      expect(await store.head(ids[1])).toBeUndefined()
      await rejection(() => readArtifactBytes(store, ids[1]), { code: 'not_found' })
      expect((await store.list()).map((record) => record.id)).toEqual([ids[3], ids[2], ids[0]])
    })
  },

  async 'artifact.isolation'({ create }) {
    const first = await create()
    const second = await create()
    const { id } = await first.put('only in the first store')
    await rule(
      'artifact.isolation',
      'two stores returned by create() must never see each other’s data: keep state per instance, use a fresh directory/database/schema/prefix per instance',
      async () => {
        expect(await second.head(id)).toBeUndefined()
        expect(await second.list()).toEqual([])
        await rejection(() => readArtifactBytes(second, id), { code: 'not_found' })
      },
    )
  },

  async 'artifact.unicode'({ create }) {
    const store = await create()
    for (const [index, [name, sample]] of Object.entries(unicodeSamples).entries()) {
      await rule(`artifact.unicode.${name}`, unicodeFix, async () => {
        const utf8 = new TextEncoder().encode(sample)
        const stored = await store.put(sample)
        expect(stored.id, 'a string is stored as its UTF-8 encoding (TextEncoder)').toBe(sha256(utf8))
        expectBytes(await readArtifactBytes(store, stored.id), utf8)
        const content = patternBytes(64, index + 100)
        let id = ''
        await unicodeOutcome(
          sample,
          async () => {
            id = (await store.put(content, { name: sample, metadata: { [`key ${sample}`]: sample } })).id
          },
          async () => {
            const record = await store.head(id)
            return { name: record?.name, metadata: record?.metadata }
          },
          { name: sample, metadata: { [`key ${sample}`]: sample } },
        )
        const metadata = { text: sample, [`key ${sample}`]: [sample] }
        let metadataId = ''
        const outcome = await unicodeOutcome(
          sample,
          async () => {
            metadataId = (await store.put(patternBytes(64, index + 200), { metadata })).id
          },
          async () => (await store.head(metadataId))?.metadata,
          metadata,
        )
        await expectExactJson(`artifact.unicode.json.${name}`, sample, outcome)
      })
    }
  },

  async 'artifact.values-copied'({ create }) {
    const store = await create()
    const bytes = patternBytes(100, 5)
    const original = bytes.slice()
    const { id } = await store.put(bytes)
    bytes.fill(0)
    for await (const chunk of store.read(id)) chunk.fill(1)
    await rule(
      'artifact.values-copied',
      'a store must copy bytes in and out: changing the input array after put, or a chunk read, must not change the stored artifact',
      async () => {
        expectBytes(await readArtifactBytes(store, id), original)
      },
    )
  },
  ...artifactCopyOutRules,
}
