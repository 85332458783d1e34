// The memory stores' write primitive: one write applied synchronously, and taken back from what its store
// recorded in the batch's undo log (used by MemoryStoreBatch).
import type { StoreWrite, StoreWriteResult } from '../../spec/store-batch.js'

/** Applies one write to a memory store and returns its result. */
export const applyWrite = Symbol('spindle.memory.applyWrite')

/** Takes back one write its store applied, from the values the store recorded for it. */
export const undoWrite = Symbol('spindle.memory.undoWrite')

export interface BatchableMemoryStore {
  /**
   * `resultWanted: false` when nobody reads the result: a store may then leave it undefined (no copy made for it).
   * With `undo`, the store records there what `[undoWrite]` needs to take the write back. A write that throws has
   * written nothing.
   */
  [applyWrite](write: StoreWrite, resultWanted?: boolean, undo?: UndoLog): StoreWriteResult
  [undoWrite](write: StoreWrite, a: unknown, b: unknown, c: unknown): void
}

/**
 * How to take back the writes a batch applied, if a later one fails: for each write its store, the write and up
 * to three values, in one flat array. A closure per write (with its context and a record of the values before)
 * cost about 200 bytes, six times per durable step, for an undo that runs only when a commit fails. A log is
 * reused from batch to batch (`clear()` empties its slots but keeps them: an array cut to length 0 loses its
 * backing store, and refilling it allocated about 400 bytes a step).
 */
export class UndoLog {
  readonly #entries: unknown[] = []
  #size = 0

  record(store: BatchableMemoryStore, write: StoreWrite, a?: unknown, b?: unknown, c?: unknown): void {
    const entries = this.#entries
    const at = this.#size
    if (at === entries.length) entries.push(store, write, a, b, c)
    else {
      entries[at] = store
      entries[at + 1] = write
      entries[at + 2] = a
      entries[at + 3] = b
      entries[at + 4] = c
    }
    this.#size = at + 5
  }

  /** Takes every recorded write back, newest first, and empties the log. */
  rollback(): void {
    const entries = this.#entries
    try {
      for (let index = this.#size - 5; index >= 0; index -= 5) {
        ;(entries[index] as BatchableMemoryStore)[undoWrite](entries[index + 1] as StoreWrite, entries[index + 2], entries[index + 3], entries[index + 4])
      }
    } finally {
      this.clear()
    }
  }

  /** Forgets the records (the slots stay, emptied, so nothing they held is kept alive). */
  clear(): void {
    const entries = this.#entries
    for (let index = 0; index < this.#size; index++) entries[index] = undefined
    this.#size = 0
  }
}
