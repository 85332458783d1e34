// The persistent store bundle (not the request-scoped RuntimeStore).
import type { ArtifactStore } from './artifact-store.js'
import type { EmbeddingStore } from './embedding-store.js'
import type { ExecutionStore } from './execution-store.js'
import type { RunStore } from './run-store.js'
import type { SessionStore } from './session-store.js'
import type { SnapshotStore } from './snapshot-store.js'

/** The six stores a runtime persists to; a durable store plugin sets them all (`extensions.setStores`). */
export interface Stores {
  sessions: SessionStore
  runs: RunStore
  executions: ExecutionStore
  snapshots: SnapshotStore
  embeddings: EmbeddingStore
  artifacts: ArtifactStore
}

/** The name of one of the six stores. */
export type StoreKind = keyof Stores
/** The six store names, in a stable order. */
export const storeKinds: readonly StoreKind[] = ['sessions', 'runs', 'executions', 'snapshots', 'embeddings', 'artifacts']
