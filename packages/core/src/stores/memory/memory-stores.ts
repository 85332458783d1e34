// memoryStores(): the six default in-memory stores, isolated per call, with a bounded retention of finished sessions.
import { ConfigurationError } from '../../errors/errors.js'
import type { Stores } from '../../spec/stores.js'
import { MemoryArtifactStore } from './memory-artifact-store.js'
import { MemoryEmbeddingStore } from './memory-embedding-store.js'
import { MemoryExecutionStore } from './memory-execution-store.js'
import { MemoryRunStore } from './memory-run-store.js'
import { MemorySessionStore } from './memory-session-store.js'
import { MemorySnapshotStore } from './memory-snapshot-store.js'
import { MemoryStoreBatch } from './memory-batch.js'
import { countRecords, defaultMemoryRetention, MemoryRetention, type MemoryRetentionOptions } from './memory-retention.js'

export { MemoryStoreBatch }
export { MemoryArtifactStore, MemoryEmbeddingStore, MemoryExecutionStore, MemoryRunStore, MemorySessionStore, MemorySnapshotStore }
export { defaultMemoryRetention, type MemoryRetentionOptions }

/** Options of `memoryStores()`: how many finished sessions are kept, and for how long (`retention`, or `false` to keep everything). */
export interface MemoryStoresOptions {
  /**
   * What is kept of finished sessions — sessions whose every run is over (completed, failed or cancelled). Default
   * `{ maxSessions: 1000 }`: past the 1,000 most recently used finished sessions, the least recently used one is
   * evicted with everything that belongs to it (its log, runs, events, snapshots, tool-call journal, the artifacts
   * its runs put and the embeddings whose `metadata.sessionId` names it), and reads as not found. A session with a
   * run that is queued, running, interrupted or awaiting approval is never evicted. `false` keeps everything for
   * the life of the process (memory grows with every run).
   */
  retention?: MemoryRetentionOptions | false
}

/**
 * A fresh set of in-memory stores; two calls never share data. Nothing survives the process, and by default only
 * the 1,000 most recently used finished sessions are kept (see `MemoryStoresOptions.retention`), so that a
 * long-running process stays bounded. This is what `new AgentRuntime(new Extensions())` uses when no store plugin
 * is registered. For data that survives a restart, use `@spindle/store-sqlite` or `@spindle/store-postgres`.
 *
 * @example
 * const extensions = new Extensions().setStores(memoryStores({ retention: { maxSessions: 200, maxAgeMs: 3_600_000 } }))
 */
export function memoryStores(options: MemoryStoresOptions = {}): Stores {
  if (options === null || typeof options !== 'object') throw new ConfigurationError('[spindle/store-memory] memoryStores(options): options must be an object')
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
  if (options.retention !== false) {
    const retention = new MemoryRetention(options.retention ?? defaultMemoryRetention)
    retention.attach(stores)
    stores.sessions.retention = stores.runs.retention = retention
  }
  return stores
}

/** How many records a set of memory stores holds, by kind (`memoryStoreCounts`). */
export interface MemoryStoreCounts {
  sessions: number
  /** Session log entries (messages, tool results, compactions…). */
  entries: number
  runs: number
  events: number
  executions: number
  snapshots: number
  artifacts: number
  embeddings: number
}

/**
 * Counts the records of a set of memory stores (from `memoryStores()`): to watch what the retention keeps. Walks
 * every store: a diagnostic, not for a hot path. A store that is not a memory store counts 0.
 *
 * @example
 * const stores = memoryStores({ retention: { maxSessions: 100 } })
 * memoryStoreCounts(stores).sessions // at most 100 finished sessions, plus the ones with a run going on
 */
export function memoryStoreCounts(stores: Stores): MemoryStoreCounts {
  const count = (store: unknown): Record<string, number> =>
    typeof (store as { [countRecords]?: unknown })?.[countRecords] === 'function' ? (store as { [countRecords](): Record<string, number> })[countRecords]() : {}
  const all = {
    ...count(stores.sessions),
    ...count(stores.runs),
    ...count(stores.executions),
    ...count(stores.snapshots),
    ...count(stores.artifacts),
    ...count(stores.embeddings),
  }
  return {
    sessions: all.sessions ?? 0,
    entries: all.entries ?? 0,
    runs: all.runs ?? 0,
    events: all.events ?? 0,
    executions: all.executions ?? 0,
    snapshots: all.snapshots ?? 0,
    artifacts: all.artifacts ?? 0,
    embeddings: all.embeddings ?? 0,
  }
}
