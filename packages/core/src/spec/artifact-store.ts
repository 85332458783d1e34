// ArtifactStore, spec v1: content-addressed binary blobs (sha-256), streamed in and out.
import type { JsonObject } from './json.js'

/** An artifact's metadata: its id (the sha-256 of its content), size, media type, name and metadata. */
export interface ArtifactRecord {
  /** Lowercase hex sha-256 of the content. */
  id: string
  size: number
  mediaType: string
  name?: string
  metadata: JsonObject
  createdAt: number
}

/** What an artifact is written from: bytes, a string, or a stream of chunks. */
export type ArtifactSource = Uint8Array | string | AsyncIterable<Uint8Array>

/** Options of `ArtifactStore.put`: media type, name and metadata. */
export interface PutArtifactOptions {
  mediaType?: string
  name?: string
  metadata?: JsonObject
}

/** Spec v1: binary artifacts (whole tool outputs, files), streamed in and out, with ranges. Check an implementation with `describeArtifactStore` from `@spindle/testing`. */
export interface ArtifactStore {
  readonly specificationVersion: 'v1'
  /** Stores the bytes once; putting the same content again returns the same id (metadata of the first put is kept, merged with new keys). */
  put(source: ArtifactSource, options?: PutArtifactOptions): Promise<ArtifactRecord>
  head(id: string): Promise<ArtifactRecord | undefined>
  /** Streams bytes `[start, end)`; throws `NotFoundError` for an unknown id. */
  read(id: string, range?: { start?: number; end?: number }): AsyncIterable<Uint8Array>
  delete(id: string): Promise<void>
  /** Newest first. */
  list(options?: { limit?: number; before?: number }): Promise<ArtifactRecord[]>
}
