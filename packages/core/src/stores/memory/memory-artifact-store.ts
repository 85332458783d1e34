// In-memory ArtifactStore: content-addressed (sha-256) blobs, de-duplicated, streamed out in chunks and ranges.
import { cloneValue } from '../clone-value.js'
import { NotFoundError } from '../../errors/errors.js'
import type { ArtifactRecord, ArtifactSource, ArtifactStore, PutArtifactOptions } from '../../spec/artifact-store.js'
import { clampArtifactRange, collectArtifactSource } from '../artifact-bytes.js'
import { countRecords, evictRun } from './memory-retention.js'

const chunkSize = 64 * 1024

/**
 * The default ArtifactStore: the bytes live in this instance's memory. An artifact put with a `runId` in its
 * metadata (a tool's whole output) belongs to the runs that put it: with `memoryStores({ retention })`, it is
 * evicted with the last of them. One put without a `runId` keeps it until `delete`.
 *
 * @example
 * const artifacts = new MemoryArtifactStore()
 * const { id } = await artifacts.put('hello', { mediaType: 'text/plain' })
 */
export class MemoryArtifactStore implements ArtifactStore {
  readonly specificationVersion = 'v1' as const
  readonly #artifacts = new Map<string, { record: ArtifactRecord; bytes: Uint8Array }>()
  /** The runs each artifact belongs to; an artifact put once without a run is not here (kept until deleted). */
  readonly #owners = new Map<string, Set<string>>()
  /** The artifacts each run put. */
  readonly #byRun = new Map<string, string[]>()

  async put(source: ArtifactSource, options: PutArtifactOptions = {}): Promise<ArtifactRecord> {
    const { id, size, bytes } = await collectArtifactSource(source)
    const existing = this.#artifacts.get(id)
    this.#own(id, options.metadata?.runId, existing !== undefined)
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
    this.#owners.delete(id)
  }

  /** Records who owns the artifact: a run (when `runId` is a string), or nobody (kept until deleted). */
  #own(id: string, runId: unknown, existed: boolean): void {
    const owners = this.#owners.get(id)
    if (typeof runId !== 'string') {
      this.#owners.delete(id)
      return
    }
    // An artifact stored before without a run stays ownerless.
    if (existed && owners === undefined) return
    if (owners === undefined) this.#owners.set(id, new Set([runId]))
    else owners.add(runId)
    const ids = this.#byRun.get(runId)
    if (ids === undefined) this.#byRun.set(runId, [id])
    else ids.push(id)
  }

  /** The run is evicted: the artifacts no other run owns go with it. */
  [evictRun](runId: string): void {
    const ids = this.#byRun.get(runId)
    if (ids === undefined) return
    this.#byRun.delete(runId)
    for (const id of ids) {
      const owners = this.#owners.get(id)
      if (owners === undefined) continue
      owners.delete(runId)
      if (owners.size > 0) continue
      this.#owners.delete(id)
      this.#artifacts.delete(id)
    }
  }

  /** Artifacts stored. */
  [countRecords](): { artifacts: number } {
    return { artifacts: this.#artifacts.size }
  }

  async list(options: { limit?: number; before?: number } = {}): Promise<ArtifactRecord[]> {
    let records = [...this.#artifacts.values()].map((artifact) => artifact.record)
    if (options.before !== undefined) records = records.filter((record) => record.createdAt < options.before!)
    records.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    if (options.limit !== undefined) records = records.slice(0, Math.max(0, options.limit))
    return cloneValue(records)
  }
}
