// SnapshotStore, spec v1: per-step run state, small, referring to the session log by sequence number.
import type { StoreBatch } from './store-batch.js'
import type { JsonObject } from './json.js'

/** A run's state after a step (`RunState`), versioned: enough to resume or fork the run. */
export interface RunSnapshot {
  runId: string
  sessionId: string
  /** Increases with every save of a run (the step, or a finer counter). */
  version: number
  /** The kernel's serialized `RunState`. */
  state: JsonObject
  createdAt: number
}

/** Spec v1: per-step snapshots of runs. Check an implementation with `describeSnapshotStore` from `@spindle/testing`. */
export interface SnapshotStore {
  readonly specificationVersion: 'v1'
  /** Optional: the backend's atomic multi-store writes (the same object on its sessions, runs, executions and snapshots stores). */
  readonly batch?: StoreBatch
  /** Saving the same `(runId, version)` twice replaces it. */
  save(snapshot: RunSnapshot): Promise<void>
  latest(runId: string): Promise<RunSnapshot | undefined>
  get(runId: string, version: number): Promise<RunSnapshot | undefined>
  /** Oldest first. */
  list(runId: string): Promise<RunSnapshot[]>
  deleteRun(runId: string): Promise<void>
}
