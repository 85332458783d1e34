// The memory stores' StoreBatch: applies each write in order through the stores' own logic and undoes the
// applied ones when a later write fails, so a batch is all or nothing like a database transaction.
import type { BatchedStores, StoreBatch, StoreWrite, StoreWriteResult, StoreWriteResultsWanted } from '../../spec/store-batch.js'
import { applyStoreWrite } from '../../util/apply-store-write.js'
import { applyWrite, type BatchableMemoryStore, UndoLog } from './memory-write.js'
import { MemoryExecutionStore } from './memory-execution-store.js'
import { sizedArray } from '../../util/sized-array.js'
import { MemoryRunStore } from './memory-run-store.js'
import { MemorySessionStore } from './memory-session-store.js'
import { MemorySnapshotStore } from './memory-snapshot-store.js'

/** The memory stores' batch, with the optional synchronous capability of the spec (`writeSync`). */
export class MemoryStoreBatch implements StoreBatch {
  readonly specificationVersion = 'v1' as const
  readonly stores: BatchedStores

  constructor(stores: BatchedStores) {
    this.stores = stores
  }

  async write(writes: readonly StoreWrite[]): Promise<StoreWriteResult[]> {
    return this.writeSync(writes) ?? this.#writeThrough(writes)
  }

  /** The writes applied synchronously through the stores' own logic (all or nothing), or undefined when a method was replaced. */
  writeSync(writes: readonly StoreWrite[], wanted?: StoreWriteResultsWanted): StoreWriteResult[] | undefined {
    for (let index = 0; index < writes.length; index++) if (this.#store(writes[index]!) === undefined) return undefined
    // A write that throws has written nothing, so the last one needs no undo (nor does a batch of one write).
    const last = writes.length - 1
    let undo: UndoLog | undefined
    if (last > 0) {
      // The batch's own log, unless a write re-entered this batch while it is in use (a getter on a value copied).
      undo = this.#undo ?? new UndoLog()
      this.#undo = undefined
    }
    // Sized once (an empty array grown by push reserves 17 slots).
    const results: StoreWriteResult[] = sizedArray(writes.length)
    try {
      for (let index = 0; index <= last; index++) {
        const write = writes[index]!
        const read = wanted === undefined || (index < wanted.count ? wanted.slots[index] !== undefined : wanted.rest)
        results[index] = this.#store(write)![applyWrite](write, read, index < last ? undo : undefined)
      }
    } catch (error) {
      undo?.rollback()
      throw error
    } finally {
      if (undo !== undefined) {
        undo.clear()
        this.#undo = undo
      }
    }
    return results
  }

  /** The undo log synchronous batches reuse (undefined while one is using it). */
  #undo: UndoLog | undefined = new UndoLog()

  /** A batch with a replaced method: each write goes through the method that handles it, with undos for the others. */
  async #writeThrough(writes: readonly StoreWrite[]): Promise<StoreWriteResult[]> {
    const results: StoreWriteResult[] = []
    // A write through a replaced method records nothing: there is nothing of ours to take back.
    const undo = new UndoLog()
    try {
      for (const write of writes) {
        const store = this.#store(write)
        // A method replaced on the instance (a test double, a wrapper) is honoured: the write goes through it.
        results.push(store === undefined ? await applyStoreWrite(this.stores, write) : store[applyWrite](write, true, undo))
      }
    } catch (error) {
      undo.rollback()
      throw error
    }
    return results
  }

  /** The memory store that applies the write with its own logic, or undefined when the write's method was replaced on the instance. */
  #store(write: StoreWrite): BatchableMemoryStore | undefined {
    const { stores } = this
    switch (write.type) {
      case 'session.append':
        return stores.sessions.append === MemorySessionStore.prototype.append ? (stores.sessions as unknown as BatchableMemoryStore) : undefined
      case 'execution.start':
        return stores.executions.start === MemoryExecutionStore.prototype.start ? (stores.executions as unknown as BatchableMemoryStore) : undefined
      case 'execution.finish':
        return stores.executions.finish === MemoryExecutionStore.prototype.finish ? (stores.executions as unknown as BatchableMemoryStore) : undefined
      case 'run.events':
        return stores.runs.appendEvents === MemoryRunStore.prototype.appendEvents ? (stores.runs as unknown as BatchableMemoryStore) : undefined
      case 'run.update':
        return stores.runs.updateRun === MemoryRunStore.prototype.updateRun ? (stores.runs as unknown as BatchableMemoryStore) : undefined
      case 'snapshot.save':
        return stores.snapshots.save === MemorySnapshotStore.prototype.save ? (stores.snapshots as unknown as BatchableMemoryStore) : undefined
    }
  }
}
