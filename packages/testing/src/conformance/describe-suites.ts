// The vitest entry points: one conformance suite per store interface, and describeStores for a whole bundle.
import type { ArtifactStore, BatchedStores, EmbeddingStore, ExecutionStore, RunStore, SessionStore, SnapshotStore, Stores } from '@spindle/core'
import { artifactStoreRules } from './artifact-store-rules.js'
import { embeddingStoreRules } from './embedding-store-rules.js'
import { executionStoreRules } from './execution-store-rules.js'
import { registerChecks, type ConformanceChecks, type StoreSuiteOptions } from './harness.js'
import { runStoreRules } from './run-store-rules.js'
import { sessionStoreRules } from './session-store-rules.js'
import { snapshotStoreRules } from './snapshot-store-rules.js'
import { storeBatchRules } from './store-batch-rules.js'

/** Large artifacts and two-connection checks on real databases need more than vitest's default time. */
const artifactTimeoutMs = 120_000

const identity = <S>(store: S): S => store

/**
 * Registers the SessionStore conformance suite.
 *
 * @example
 * describeSessionStore('my-sessions', { create: () => new MySessionStore() })
 */
export function describeSessionStore(name: string, options: StoreSuiteOptions<SessionStore>): void {
  registerChecks(`${name}: SessionStore conformance`, sessionStoreRules, options, identity)
}

/** Registers the RunStore conformance suite. */
export function describeRunStore(name: string, options: StoreSuiteOptions<RunStore>): void {
  registerChecks(`${name}: RunStore conformance`, runStoreRules, options, identity)
}

/** Registers the ExecutionStore conformance suite. */
export function describeExecutionStore(name: string, options: StoreSuiteOptions<ExecutionStore>): void {
  registerChecks(`${name}: ExecutionStore conformance`, executionStoreRules, options, identity)
}

/** Registers the SnapshotStore conformance suite. */
export function describeSnapshotStore(name: string, options: StoreSuiteOptions<SnapshotStore>): void {
  registerChecks(`${name}: SnapshotStore conformance`, snapshotStoreRules, options, identity)
}

/** Registers the EmbeddingStore conformance suite. */
export function describeEmbeddingStore(name: string, options: StoreSuiteOptions<EmbeddingStore>): void {
  registerChecks(`${name}: EmbeddingStore conformance`, embeddingStoreRules, options, identity)
}

/** Registers the ArtifactStore conformance suite (includes a 10 MB artifact). */
export function describeArtifactStore(name: string, options: StoreSuiteOptions<ArtifactStore>): void {
  registerChecks(`${name}: ArtifactStore conformance`, artifactStoreRules, options, identity, artifactTimeoutMs)
}

/**
 * Registers the StoreBatch conformance suite: `create` returns a fresh set of stores (at least sessions, runs,
 * executions and snapshots) whose `batch` is the backend's StoreBatch. The checks compare each batch with the
 * same writes made through the single-store methods, so run the store suites (`describeStores`) as well.
 *
 * @example
 * describeStoreBatch('sqlite', { create: () => sqliteStores({ path: ':memory:' }), cleanup: (stores) => (stores as SqliteStores).close() })
 */
export function describeStoreBatch(name: string, options: StoreSuiteOptions<BatchedStores>): void {
  registerChecks(`${name}: StoreBatch conformance`, storeBatchRules, options, identity)
}

/** Every check of every store interface, keyed by the `Stores` slot they test. */
export const storeConformanceRules: { [K in keyof Stores]: ConformanceChecks<Stores[K]> } = {
  sessions: sessionStoreRules,
  runs: runStoreRules,
  executions: executionStoreRules,
  snapshots: snapshotStoreRules,
  embeddings: embeddingStoreRules,
  artifacts: artifactStoreRules,
}

const titles: { [K in keyof Stores]: string } = {
  sessions: 'SessionStore',
  runs: 'RunStore',
  executions: 'ExecutionStore',
  snapshots: 'SnapshotStore',
  embeddings: 'EmbeddingStore',
  artifacts: 'ArtifactStore',
}

/**
 * Registers all six conformance suites against a store bundle. `create` must return fresh, empty stores on
 * every call; `cleanup` receives every bundle `create` and `createSecondConnection` returned. Generic over your
 * bundle's type: `cleanup` and `createSecondConnection` receive it as `create` returned it (no cast), and `create`
 * and `createSecondConnection` may each return it directly or in a promise.
 * `skip` keys are check ids (`'artifact.large'`) or prefixes (`'embedding'`), with the reason as value.
 *
 * @example
 * describeStores('sqlite', {
 *   create: () => sqliteStores({ path: join(tempDir, `${randomUUID()}.db`) }),
 *   createSecondConnection: (stores) => sqliteStores({ path: pathOf(stores) }),
 * })
 */
export function describeStores<B extends Stores>(name: string, options: StoreSuiteOptions<B>): void {
  for (const kind of Object.keys(storeConformanceRules) as Array<keyof Stores>) {
    const checks = storeConformanceRules[kind] as ConformanceChecks<Stores[typeof kind]>
    registerChecks(
      `${name}: ${titles[kind]} conformance`,
      checks,
      options,
      (stores: B) => stores[kind],
      kind === 'artifacts' || kind === 'sessions' ? artifactTimeoutMs : undefined,
    )
  }
}
