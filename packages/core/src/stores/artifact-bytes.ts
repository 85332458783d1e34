// Helpers for ArtifactStore implementations and callers: normalize a source, hash it, read bytes back.
import { createHash } from 'node:crypto'
import type { ArtifactSource, ArtifactStore } from '../spec/artifact-store.js'

/** Yields the bytes of an artifact source: a string is UTF-8 encoded, a byte array is yielded once. */
export async function* artifactSourceChunks(source: ArtifactSource): AsyncIterable<Uint8Array> {
  if (typeof source === 'string') yield new TextEncoder().encode(source)
  else if (source instanceof Uint8Array) yield source
  else for await (const chunk of source) yield chunk
}

/** A whole artifact source read into memory: its id (the sha-256 of the bytes), its size and its bytes. */
export interface CollectedArtifact {
  /** Lowercase hex sha-256 of the bytes: the artifact id. */
  id: string
  size: number
  bytes: Uint8Array
}

/**
 * Reads a whole source into one buffer (copied, so later changes by the caller do not leak in) and hashes it.
 *
 * @example
 * const { id, size, bytes } = await collectArtifactSource('hello')
 */
export async function collectArtifactSource(source: ArtifactSource): Promise<CollectedArtifact> {
  const hash = createHash('sha256')
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of artifactSourceChunks(source)) {
    if (!(chunk instanceof Uint8Array)) throw new TypeError('An artifact stream must yield Uint8Array chunks')
    hash.update(chunk)
    chunks.push(chunk)
    size += chunk.byteLength
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return { id: hash.digest('hex'), size, bytes }
}

/** Clamps a requested `[start, end)` range to an artifact of `size` bytes. */
export function clampArtifactRange(size: number, range?: { start?: number; end?: number }): { start: number; end: number } {
  const start = Math.min(size, Math.max(0, Math.floor(range?.start ?? 0)))
  const end = Math.min(size, Math.max(start, Math.floor(range?.end ?? size)))
  return { start, end }
}

/**
 * Reads an artifact (or a `[start, end)` range of it) into one buffer.
 *
 * @example
 * const header = await readArtifactBytes(stores.artifacts, id, { end: 16 })
 */
export async function readArtifactBytes(store: Pick<ArtifactStore, 'read'>, id: string, range?: { start?: number; end?: number }): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of store.read(id, range)) {
    chunks.push(chunk)
    size += chunk.byteLength
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}
