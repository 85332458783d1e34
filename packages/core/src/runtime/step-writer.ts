// StepWriter: a run's store writes, queued and committed together — one atomic StoreBatch call when the
// registered stores share one (two commits per durable step), else one store call per write, in order.
import type { StoreBatch, StoreWrite, StoreWriteResult } from '../spec/store-batch.js'
import type { Stores } from '../spec/stores.js'
import { asPromise } from '../util/as-promise.js'
import type { MaybePromise } from '../util/fast-path.js'
import { sizedArray } from '../util/sized-array.js'
import { applyStoreWrite } from '../util/apply-store-write.js'

type Done = ((result: StoreWriteResult) => void) | undefined

const ignore = (): void => {}

/**
 * A run's store writes. Built by `stepWriter()` as one literal, its methods included: a class instance's hidden
 * class dies at a full GC when no run is alive, and the code compiled against it (see util/fast-path.ts).
 */
export class StepWriter {
  declare readonly batch: StoreBatch | undefined
  declare readonly stores: Stores
  /**
   * The queued writes and their callbacks: slots `0 … queuedCount - 1`. The arrays are kept from commit to commit (a
   * commit empties their slots): a fresh array per commit, grown by its first push to 17 slots, cost about 300
   * bytes a commit, twice a durable step.
   */
  declare queue: StoreWrite[]
  declare done: Done[]
  /** How many writes are queued. */
  declare queuedCount: number
  /** The batch, when it offers `writeSync` (the memory stores'): a commit then needs no async round. */
  declare readonly now: StoreBatch | undefined
  /** Which results of a synchronous commit are read: one object per writer, updated per commit (see StoreBatch.writeSync). */
  declare readonly wanted: { slots: readonly unknown[]; count: number; rest: boolean }
  /** The last commit still in flight, if any. */
  declare inFlight: Promise<unknown> | undefined
  declare tickets: number

  /** A copy of the queued writes (not yet committed). */
  queued(): readonly StoreWrite[] {
    return this.queue.slice(0, this.queuedCount)
  }

  /** Queued write `index` (0 ≤ index < `queuedCount`). */
  queuedWrite(index: number): StoreWrite {
    return this.queue[index]!
  }

  /** Queues a write for the next `commit()`; `done` receives its result once committed. */
  defer<W extends StoreWrite>(write: W, done?: (result: StoreWriteResult<W>) => void): void {
    const at = this.queuedCount++
    if (at === this.queue.length) {
      this.queue.push(write)
      this.done.push(done as Done)
    } else {
      this.queue[at] = write
      this.done[at] = done as Done
    }
  }

  /** The queued writes, then `writes`, in one new array: what one commit sends. */
  withQueued(writes: readonly StoreWrite[]): readonly StoreWrite[] {
    const size = this.queuedCount
    if (size === 0) return writes
    const all: StoreWrite[] = sizedArray(size + writes.length)
    for (let index = 0; index < size; index++) all[index] = this.queue[index]!
    for (let index = 0; index < writes.length; index++) all[size + index] = writes[index]!
    return all
  }

  /** Empties the queue (its slots: nothing committed stays referenced). */
  clearQueue(): void {
    for (let index = 0; index < this.queuedCount; index++) {
      this.queue[index] = undefined as never
      this.done[index] = undefined
    }
    this.queuedCount = 0
  }

  /**
   * Commits the queued writes, then `writes`, and resolves with the results of `writes`. When it rejects, the
   * queued writes stay queued only if `keepOnFailure` (a batch is all or nothing, so they were not written).
   */
  commit(writes: readonly StoreWrite[] = [], keepOnFailure = false): Promise<StoreWriteResult[]> {
    return asPromise(() => this.commitNow(writes, keepOnFailure))
  }

  /**
   * `commit()`, with the results returned as they are when the batch applied the writes synchronously (the
   * memory stores', with no commit in flight): the caller then continues without an async round. A synchronous
   * failure throws (nothing was written). `resultsWanted: false` when the caller ignores the results of `writes`:
   * a synchronous batch then need not build them, and returns an empty array for them.
   */
  commitNow(writes: readonly StoreWrite[] = [], keepOnFailure = false, resultsWanted = true): MaybePromise<StoreWriteResult[]> {
    // Commits land in call order: parallel tool calls each commit their journal start, and a later one must not
    // become durable before the earlier one that carries the assistant message asking for them. Each commit
    // waits for the one before it (only when one is still in flight: one async call per commit otherwise).
    const previous = this.inFlight
    if (previous === undefined && this.now !== undefined) {
      const results = this.commitSync(this.now, writes, keepOnFailure, resultsWanted)
      if (results !== undefined) return results
    }
    const ticket = ++this.tickets
    const committing = this.commitAsync(previous, ticket, writes, keepOnFailure)
    this.inFlight = committing
    return committing
  }

  /** A commit through a synchronous batch; undefined when the batch cannot take these writes synchronously (then the async path runs). */
  commitSync(batch: StoreBatch, writes: readonly StoreWrite[], keepOnFailure: boolean, resultsWanted: boolean): StoreWriteResult[] | undefined {
    const size = this.queuedCount
    if (!size && !writes.length) return []
    const all = this.withQueued(writes)
    let results: StoreWriteResult[] | undefined
    try {
      // Only the results someone reads are built: a queued write's when it has a callback, and the others' if wanted.
      const wanted = this.wanted
      wanted.slots = this.done
      wanted.count = size
      wanted.rest = resultsWanted
      results = batch.writeSync!(all, wanted)
      wanted.slots = noSlots
    } catch (error) {
      // The batch wrote nothing: the queued writes stay queued only if asked (as in the async path).
      if (!keepOnFailure) this.clearQueue()
      throw error
    }
    if (results === undefined) return undefined
    const done = this.done
    for (let index = 0; index < size; index++) {
      const callback = done[index]
      done[index] = undefined
      this.queue[index] = undefined as never
      callback?.(results[index]!)
    }
    this.queuedCount = 0
    if (!resultsWanted) return unread
    return size ? results.slice(size) : results
  }

  /** The asynchronous commit: after `previous` (the commit still in flight, if any), through `batch.write()` or one store call per write. */
  async commitAsync(
    previous: Promise<unknown> | undefined,
    ticket: number,
    writes: readonly StoreWrite[],
    keepOnFailure: boolean,
  ): Promise<StoreWriteResult[]> {
    try {
      if (previous) await previous.catch(ignore)
      const size = this.queuedCount
      if (!size && !writes.length) return []
      const all = this.withQueued(writes)
      const queued = this.queue.slice(0, size)
      const done = this.done.slice(0, size)
      this.clearQueue()
      if (!this.batch) {
        // One call per write: each queued write's result is delivered as soon as it is written.
        const results: StoreWriteResult[] = []
        for (let index = 0; index < all.length; index++) {
          const result = await applyStoreWrite(this.stores, all[index]!)
          if (index < done.length) done[index]?.(result)
          else results.push(result)
        }
        return results
      }
      let results: StoreWriteResult[]
      try {
        results = await this.batch.write(all)
      } catch (error) {
        if (keepOnFailure) {
          // Back in front of whatever was queued since.
          this.queue = queued.concat(this.queue.slice(0, this.queuedCount))
          this.done = done.concat(this.done.slice(0, this.queuedCount))
          this.queuedCount = this.queue.length
        }
        throw error
      }
      return settle(done, results)
    } finally {
      if (this.tickets === ticket) this.inFlight = undefined
    }
  }
}

/** What `wanted.slots` holds between commits (nothing of a commit stays referenced). */
const noSlots: readonly unknown[] = Object.freeze([])

/** What a commit returns when its caller does not read the results. */
const unread: StoreWriteResult[] = Object.freeze([]) as unknown as StoreWriteResult[]

/** Hands each queued write its result (`done` has one entry per queued write) and returns the results of the others. */
function settle(done: Done[], results: StoreWriteResult[]): StoreWriteResult[] {
  for (let index = 0; index < done.length; index++) done[index]?.(results[index]!)
  return done.length ? results.slice(done.length) : results
}

const methods = StepWriter.prototype

/** The writer of a run's store writes: through `batch` when the stores share one, else one store call per write. */
export function stepWriter(stores: Stores, batch: StoreBatch | undefined): StepWriter {
  return {
    batch,
    stores,
    queue: [],
    done: [],
    queuedCount: 0,
    now: batch !== undefined && typeof batch.writeSync === 'function' ? batch : undefined,
    wanted: { slots: [], count: 0, rest: true },
    inFlight: undefined,
    tickets: 0,
    queued: methods.queued,
    queuedWrite: methods.queuedWrite,
    defer: methods.defer,
    withQueued: methods.withQueued,
    clearQueue: methods.clearQueue,
    commit: methods.commit,
    commitNow: methods.commitNow,
    commitSync: methods.commitSync,
    commitAsync: methods.commitAsync,
  }
}
