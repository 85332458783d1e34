// In-memory SnapshotStore: per-run snapshots keyed by version.
import { cloneValue } from '../clone-value.js'
import { copySnapshot } from './memory-copies.js'
import type { RunSnapshot, SnapshotStore } from '../../spec/snapshot-store.js'
import type { StoreBatch, StoreWrite } from '../../spec/store-batch.js'
import { applyWrite, type UndoLog, undoWrite } from './memory-write.js'
import { countRecords, evictRun } from './memory-retention.js'

/**
 * The default SnapshotStore: everything lives in this instance's maps; values are deep-copied in and out.
 *
 * @example
 * const snapshots = new MemorySnapshotStore()
 * await snapshots.save({ runId: 'run', sessionId: 's', version: 1, state: {}, createdAt: Date.now() })
 */
export class MemorySnapshotStore implements SnapshotStore {
  readonly specificationVersion = 'v1' as const
  /** Set by `memoryStores()`: the batch shared by the four stores of one set. */
  batch?: StoreBatch
  readonly #runs = new Map<string, Map<number, RunSnapshot>>()

  async save(snapshot: RunSnapshot): Promise<void> {
    this[applyWrite]({ type: 'snapshot.save', snapshot })
  }

  /** Saves a snapshot (one write of a batch, or \`save\` itself); its undo restores the version it replaced. */
  [applyWrite](write: StoreWrite, _resultWanted?: boolean, undo?: UndoLog): undefined {
    if (write.type !== 'snapshot.save') throw new TypeError(`[spindle/store-memory] the snapshot store cannot apply "${write.type}"`)
    const copy = copySnapshot(write.snapshot)
    let versions = this.#runs.get(copy.runId)
    const created = versions === undefined
    if (versions === undefined) {
      versions = new Map()
      this.#runs.set(copy.runId, versions)
    }
    undo?.record(this, write, versions.get(copy.version), created, copy)
    versions.set(copy.version, copy)
    return undefined
  }

  /** Takes a save back (the newest write applied to that run's snapshots): the version it replaced comes back. */
  [undoWrite](_write: StoreWrite, previous: unknown, created: unknown, saved: unknown): void {
    const { runId, version } = saved as RunSnapshot
    const versions = this.#runs.get(runId)!
    if (previous === undefined) versions.delete(version)
    else versions.set(version, previous as RunSnapshot)
    if (created === true) this.#runs.delete(runId)
  }

  async latest(runId: string): Promise<RunSnapshot | undefined> {
    const all = this.#sorted(runId)
    return all.length === 0 ? undefined : cloneValue(all[all.length - 1])
  }

  async get(runId: string, version: number): Promise<RunSnapshot | undefined> {
    const snapshot = this.#runs.get(runId)?.get(version)
    return snapshot === undefined ? undefined : cloneValue(snapshot)
  }

  async list(runId: string): Promise<RunSnapshot[]> {
    return cloneValue(this.#sorted(runId))
  }

  async deleteRun(runId: string): Promise<void> {
    this.#runs.delete(runId)
  }

  /** Removes the run's snapshots (retention). */
  [evictRun](runId: string): void {
    this.#runs.delete(runId)
  }

  /** Snapshots, every version counted. */
  [countRecords](): { snapshots: number } {
    let snapshots = 0
    for (const versions of this.#runs.values()) snapshots += versions.size
    return { snapshots }
  }

  #sorted(runId: string): RunSnapshot[] {
    return [...(this.#runs.get(runId)?.values() ?? [])].sort((a, b) => a.version - b.version)
  }
}
