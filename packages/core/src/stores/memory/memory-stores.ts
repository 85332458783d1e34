// memoryStores(): the six default in-memory stores, isolated per call.
import type { Stores } from '../../spec/stores.js'
import { MemoryArtifactStore } from './memory-artifact-store.js'
import { MemoryEmbeddingStore } from './memory-embedding-store.js'
import { MemoryExecutionStore } from './memory-execution-store.js'
import { MemoryRunStore } from './memory-run-store.js'
import { MemorySessionStore } from './memory-session-store.js'
import { MemorySnapshotStore } from './memory-snapshot-store.js'
import { MemoryStoreBatch } from './memory-batch.js'

export { MemoryStoreBatch }
export { MemoryArtifactStore, MemoryEmbeddingStore, MemoryExecutionStore, MemoryRunStore, MemorySessionStore, MemorySnapshotStore }

/**
 * A fresh set of in-memory stores; two calls never share data. Nothing survives the process.
 *
 * @example
 * const extensions = new Extensions().setStores(memoryStores())
 */
export function memoryStores(): Stores {
  const stores = {
    sessions: new MemorySessionStore(),
    runs: new MemoryRunStore(),
    executions: new MemoryExecutionStore(),
    snapshots: new MemorySnapshotStore(),
    embeddings: new MemoryEmbeddingStore(),
    artifacts: new MemoryArtifactStore(),
  }
  // One batch for the four stores of this set: the kernel commits a step's writes in one call.
  const batch = new MemoryStoreBatch(stores)
  stores.sessions.batch = stores.runs.batch = stores.executions.batch = stores.snapshots.batch = batch
  return stores
}
