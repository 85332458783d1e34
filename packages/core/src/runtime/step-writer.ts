// StepWriter: a run's store writes, queued and committed together — one atomic StoreBatch call when the
// registered stores share one (two commits per durable step), else one store call per write, in order.
import type { BatchedStores, StoreBatch, StoreWrite, StoreWriteResult } from '../spec/store-batch.js'
import type { Stores } from '../spec/stores.js'
import { asPromise } from './as-promise.js'
import { type SynchronousBatch, writeNow } from '../stores/memory/memory-write.js'

type Done = ((result: StoreWriteResult) => void) | undefined

const ignore = (): void => {}

export class StepWriter {
  readonly batch: StoreBatch | undefined
  readonly #stores: Stores
  #queue: StoreWrite[] = []
  #done: Done[] = []

  /** The batch, when it applies writes synchronously (the memory stores'): a commit then needs no async round. */
  readonly #now: SynchronousBatch | undefined

  constructor(stores: Stores, batch: StoreBatch | undefined) {
    this.#stores = stores
    this.batch = batch
    this.#now = batch !== undefined && typeof (batch as Partial<SynchronousBatch>)[writeNow] === 'function' ? (batch as unknown as SynchronousBatch) : undefined
  }

  /** The queued writes (not yet committed). */
  get queued(): readonly StoreWrite[] {
    return this.#queue
  }

  /** Queues a write for the next `commit()`; `done` receives its result once committed. */
  defer<W extends StoreWrite>(write: W, done?: (result: StoreWriteResult<W>) => void): void {
    this.#queue.push(write)
    this.#done.push(done as Done)
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
   * a synchronous batch then need not build them (they come back undefined).
   */
  commitNow(writes: readonly StoreWrite[] = [], keepOnFailure = false, resultsWanted = true): StoreWriteResult[] | Promise<StoreWriteResult[]> {
    // Commits land in call order: parallel tool calls each commit their journal start, and a later one must not
    // become durable before the earlier one that carries the assistant message asking for them. Each commit
    // waits for the one before it (only when one is still in flight: one async call per commit otherwise).
    const previous = this.#inFlight
    if (previous === undefined && this.#now !== undefined) {
      const results = this.#commitSync(this.#now, writes, keepOnFailure, resultsWanted)
      if (results !== undefined) return results
    }
    const ticket = ++this.#tickets
    const committing = this.#commitNow(previous, ticket, writes, keepOnFailure)
    this.#inFlight = committing
    return committing
  }

  #inFlight: Promise<unknown> | undefined
  #tickets = 0

  /** A commit through a synchronous batch; undefined when the batch cannot take these writes synchronously (then the async path runs). */
  #commitSync(batch: SynchronousBatch, writes: readonly StoreWrite[], keepOnFailure: boolean, resultsWanted: boolean): StoreWriteResult[] | undefined {
    const queued = this.#queue
    const done = this.#done
    if (!queued.length && !writes.length) return []
    const all = withQueued(queued, writes)
    let results: StoreWriteResult[] | undefined
    try {
      // Only the results someone reads are built: a queued write's when it has a callback, and the others' if wanted.
      results = batch[writeNow](all, done, resultsWanted)
    } catch (error) {
      // The batch wrote nothing: the queued writes stay queued only if asked (as in the async path).
      if (!keepOnFailure) {
        this.#queue = []
        this.#done = []
      }
      throw error
    }
    if (results === undefined) return undefined
    this.#queue = []
    this.#done = []
    return settle(done, results)
  }

  async #commitNow(previous: Promise<unknown> | undefined, ticket: number, writes: readonly StoreWrite[], keepOnFailure: boolean): Promise<StoreWriteResult[]> {
    try {
      if (previous) await previous.catch(ignore)
      const queued = this.#queue
      const done = this.#done
      if (!queued.length && !writes.length) return []
      this.#queue = []
      this.#done = []
      const all = withQueued(queued, writes)
      if (!this.batch) {
        // One call per write: each queued write's result is delivered as soon as it is written.
        const results: StoreWriteResult[] = []
        for (let index = 0; index < all.length; index++) {
          const result = await applyStoreWrite(this.#stores, all[index]!)
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
          this.#queue = queued.concat(this.#queue)
          this.#done = done.concat(this.#done)
        }
        throw error
      }
      return settle(done, results)
    } finally {
      if (this.#tickets === ticket) this.#inFlight = undefined
    }
  }
}

/** The queued writes, then `writes`: what one commit sends. */
function withQueued(queued: StoreWrite[], writes: readonly StoreWrite[]): readonly StoreWrite[] {
  return queued.length ? (writes.length ? queued.concat(writes) : queued) : writes
}

/** Hands each queued write its result (`done` has one entry per queued write) and returns the results of the others. */
function settle(done: Done[], results: StoreWriteResult[]): StoreWriteResult[] {
  for (let index = 0; index < done.length; index++) done[index]?.(results[index]!)
  return done.length ? results.slice(done.length) : results
}

/**
 * One write through the single-store method it stands for: what a run does without a batch, and what a batch's
 * results must equal.
 *
 * @example
 * const [entry] = (await applyStoreWrite(stores, { type: 'session.append', sessionId, entries })) as SessionEntry[]
 */
export function applyStoreWrite(stores: BatchedStores, write: StoreWrite): Promise<StoreWriteResult> {
  switch (write.type) {
    case 'session.append':
      return stores.sessions.append(write.sessionId, write.entries, write.fence === undefined ? {} : { fence: write.fence })
    case 'execution.start':
      return stores.executions.start(write.execution)
    case 'execution.finish':
      return stores.executions.finish(write.key, write.outcome)
    case 'run.events':
      return stores.runs.appendEvents(write.runId, write.events) as Promise<undefined>
    case 'run.update':
      return stores.runs.updateRun(write.runId, write.patch)
    case 'snapshot.save':
      return stores.snapshots.save(write.snapshot) as Promise<undefined>
  }
}
