// In-memory SnapshotStore: per-run snapshots keyed by version.
import { cloneValue } from '../clone-value.js'
import { copySnapshot } from './memory-copies.js'
import type { RunSnapshot, SnapshotStore } from '../../spec/snapshot-store.js'
import type { StoreBatch, StoreWrite } from '../../spec/store-batch.js'
import { type AppliedWrite, applyWrite } from './memory-write.js'

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

  /** Saves a snapshot (one write of a batch, or \`save\` itself); the undo restores the version it replaced. */
  [applyWrite](write: StoreWrite): AppliedWrite {
    if (write.type !== 'snapshot.save') throw new TypeError(`[spindle/store-memory] the snapshot store cannot apply "${write.type}"`)
    const copy = copySnapshot(write.snapshot)
    let versions = this.#runs.get(copy.runId)
    const created = versions === undefined
    if (versions === undefined) {
      versions = new Map()
      this.#runs.set(copy.runId, versions)
    }
    const previous = versions.get(copy.version)
    versions.set(copy.version, copy)
    const target = versions
    return {
      result: undefined,
      undo: () => {
        if (previous === undefined) target.delete(copy.version)
        else target.set(copy.version, previous)
        if (created) this.#runs.delete(copy.runId)
      },
    }
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

  #sorted(runId: string): RunSnapshot[] {
    return [...(this.#runs.get(runId)?.values() ?? [])].sort((a, b) => a.version - b.version)
  }
}
