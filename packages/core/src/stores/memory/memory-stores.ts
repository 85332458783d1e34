// memoryStores(): the six default in-memory stores, isolated per call.
import type { Stores } from '../../spec/stores.js'
import { MemoryArtifactStore } from './memory-artifact-store.js'
import { MemoryEmbeddingStore } from './memory-embedding-store.js'
import { MemoryExecutionStore } from './memory-execution-store.js'
import { MemoryRunStore } from './memory-run-store.js'
import { MemorySessionStore } from './memory-session-store.js'
import { MemorySnapshotStore } from './memory-snapshot-store.js'

export { MemoryArtifactStore, MemoryEmbeddingStore, MemoryExecutionStore, MemoryRunStore, MemorySessionStore, MemorySnapshotStore }

/**
 * A fresh set of in-memory stores; two calls never share data. Nothing survives the process.
 *
 * @example
 * const extensions = new Extensions().setStores(memoryStores())
 */
export function memoryStores(): Stores {
  return {
    sessions: new MemorySessionStore(),
    runs: new MemoryRunStore(),
    executions: new MemoryExecutionStore(),
    snapshots: new MemorySnapshotStore(),
    embeddings: new MemoryEmbeddingStore(),
    artifacts: new MemoryArtifactStore(),
  }
}
