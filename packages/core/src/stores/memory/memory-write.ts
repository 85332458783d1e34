// The memory stores' write primitive: one write applied synchronously, with its undo (used by MemoryStoreBatch).
import type { StoreWrite, StoreWriteResult } from '../../spec/store-batch.js'

/** Applies one write to a memory store; returns its result and how to take it back. */
export const applyWrite = Symbol('spindle.memory.applyWrite')

export interface AppliedWrite {
  result: StoreWriteResult
  undo(): void
}

export interface BatchableMemoryStore {
  [applyWrite](write: StoreWrite): AppliedWrite
}
