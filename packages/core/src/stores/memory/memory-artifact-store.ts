// In-memory ArtifactStore: content-addressed (sha-256) blobs, de-duplicated, streamed out in chunks and ranges.
import { cloneValue } from '../clone-value.js'
import { NotFoundError } from '../../errors/errors.js'
import type { ArtifactRecord, ArtifactSource, ArtifactStore, PutArtifactOptions } from '../../spec/artifact-store.js'
import { clampArtifactRange, collectArtifactSource } from '../artifact-bytes.js'

const chunkSize = 64 * 1024

/**
 * The default ArtifactStore: the bytes live in this instance's memory.
 *
 * @example
 * const artifacts = new MemoryArtifactStore()
 * const { id } = await artifacts.put('hello', { mediaType: 'text/plain' })
 */
export class MemoryArtifactStore implements ArtifactStore {
  readonly specificationVersion = 'v1' as const
  readonly #artifacts = new Map<string, { record: ArtifactRecord; bytes: Uint8Array }>()

  async put(source: ArtifactSource, options: PutArtifactOptions = {}): Promise<ArtifactRecord> {
    const { id, size, bytes } = await collectArtifactSource(source)
    const existing = this.#artifacts.get(id)
    if (existing !== undefined) {
      // The first put's metadata wins; new keys are added.
      existing.record.metadata = { ...cloneValue(options.metadata ?? {}), ...existing.record.metadata }
      return cloneValue(existing.record)
    }
    const record: ArtifactRecord = {
      id,
      size,
      mediaType: options.mediaType ?? (typeof source === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream'),
      ...(options.name !== undefined && { name: options.name }),
      metadata: cloneValue(options.metadata ?? {}),
      createdAt: Date.now(),
    }
    this.#artifacts.set(id, { record, bytes })
    return cloneValue(record)
  }

  async head(id: string): Promise<ArtifactRecord | undefined> {
    const artifact = this.#artifacts.get(id)
    return artifact === undefined ? undefined : cloneValue(artifact.record)
  }

  read(id: string, range?: { start?: number; end?: number }): AsyncIterable<Uint8Array> {
    const artifacts = this.#artifacts
    return {
      async *[Symbol.asyncIterator]() {
        const artifact = artifacts.get(id)
        if (artifact === undefined) throw new NotFoundError(`[spindle/store-memory] Artifact "${id}" does not exist; put it first or check the id`)
        const { start, end } = clampArtifactRange(artifact.bytes.byteLength, range)
        for (let offset = start; offset < end; offset += chunkSize) {
          // slice copies, so a consumer cannot change the stored bytes.
          yield artifact.bytes.slice(offset, Math.min(end, offset + chunkSize))
        }
      },
    }
  }

  async delete(id: string): Promise<void> {
    this.#artifacts.delete(id)
  }

  async list(options: { limit?: number; before?: number } = {}): Promise<ArtifactRecord[]> {
    let records = [...this.#artifacts.values()].map((artifact) => artifact.record)
    if (options.before !== undefined) records = records.filter((record) => record.createdAt < options.before!)
    records.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    if (options.limit !== undefined) records = records.slice(0, Math.max(0, options.limit))
    return cloneValue(records)
  }
}
