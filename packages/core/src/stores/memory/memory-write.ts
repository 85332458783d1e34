// The memory stores' write primitive: one write applied synchronously, with its undo (used by MemoryStoreBatch).
import type { StoreWrite, StoreWriteResult } from '../../spec/store-batch.js'

/** Applies one write to a memory store; returns its result and how to take it back. */
export const applyWrite = Symbol('spindle.memory.applyWrite')

export interface AppliedWrite {
  result: StoreWriteResult
  undo(): void
}

export interface BatchableMemoryStore {
  /** `resultWanted: false` when nobody reads the result: a store may then leave it undefined (no copy made for it). */
  [applyWrite](write: StoreWrite, resultWanted?: boolean): AppliedWrite
}

/**
 * A batch that can apply writes synchronously: the results, or undefined when it cannot (a store method replaced
 * on its instance), and then `write()` runs them. The run's StepWriter uses it to commit without an async round
 * (internal to the kernel and the memory stores).
 */
export const writeNow = Symbol('spindle.memory.writeNow')

export interface SynchronousBatch {
  /**
   * `callbacks` (when given) says whose results are read: write i's when `callbacks[i]` is defined, and the
   * writes past `callbacks.length` when `restWanted`. The others' results may be left undefined.
   */
  [writeNow](writes: readonly StoreWrite[], callbacks?: readonly unknown[], restWanted?: boolean): StoreWriteResult[] | undefined
}
