// StoreBatch, spec v1: an optional capability of a store backend — several writes to its sessions, runs,
// executions and snapshots stores committed atomically, in one transaction. A durable step then costs two
// commits (before its tools run, and after) instead of one per write.
import type { AgentEvent } from './events.js'
import type { ExecutionOutcome, ExecutionRecord, NewExecution } from './execution-store.js'
import type { RunPatch, RunRecord } from './run-store.js'
import type { SessionEntry, SessionEntryInput } from './session-store.js'
import type { RunSnapshot } from './snapshot-store.js'
import type { Stores } from './stores.js'

/** One write of a batch: the arguments of the single-store method it stands for. */
export type StoreWrite =
  | {
      type: 'session.append'
      sessionId: string
      entries: SessionEntryInput[]
      fence?: number
      /**
       * When set, the session's `lastSeq` must be exactly this when the write applies (after the batch's earlier
       * writes), or the batch fails with `SequenceConflictError` and nothing is written. The kernel sets it when
       * the same batch saves a snapshot that refers to the seqs this append will get. `undefined` (the field
       * present or not) means no condition: the kernel builds every append write with this field.
       */
      expectedLastSeq?: number
    }
  | { type: 'execution.start'; execution: NewExecution }
  | { type: 'execution.finish'; key: string; outcome: ExecutionOutcome }
  | { type: 'run.events'; runId: string; events: AgentEvent[] }
  | { type: 'run.update'; runId: string; patch: RunPatch }
  | { type: 'snapshot.save'; snapshot: RunSnapshot }

/** What each write returns: exactly what its single-store method returns. */
export interface StoreWriteResults {
  'session.append': SessionEntry[]
  'execution.start': { record: ExecutionRecord; created: boolean }
  'execution.finish': ExecutionRecord
  'run.events': undefined
  'run.update': RunRecord
  'snapshot.save': undefined
}

/** What one write of a batch returns (the same as its single-store method). */
export type StoreWriteResult<W extends StoreWrite = StoreWrite> = StoreWriteResults[W['type']]

/** The stores a batch writes to. */
export type BatchedStores = Pick<Stores, 'sessions' | 'runs' | 'executions' | 'snapshots'>

/** Optional spec v1: commits a step's writes to several stores in one transaction, all or nothing. Check an implementation with `describeStoreBatch` from `@spindle/testing`. */
export interface StoreBatch {
  readonly specificationVersion: 'v1'
  /**
   * The store instances whose writes this batch performs. The kernel batches only when these are exactly
   * the stores registered (a wrapped or mixed set falls back to one call per write).
   */
  readonly stores: BatchedStores
  /**
   * Applies the writes in order, atomically: when the promise resolves every write is durable, and when it
   * rejects none is — with the typed error the failing write throws on its own (`StaleFenceError`,
   * `NotFoundError`…). Results are in the order of `writes`.
   */
  write(writes: readonly StoreWrite[]): Promise<StoreWriteResult[]>
  /**
   * Optional capability: the same writes applied synchronously (all or nothing, the same results and errors as
   * `write()`), for a backend that can (an in-memory one). The kernel then commits a step without an async round.
   * Returns undefined when it cannot apply these writes synchronously (the kernel then calls `write()`); a
   * synchronous throw means nothing was written. `wanted` says whose results the caller reads: write `i`'s, for
   * `i < wanted.count`, when `wanted.slots[i]` is not undefined, and the writes from `wanted.count` on when
   * `wanted.rest`; a batch may leave the others' results undefined. Without `wanted`, every result is read.
   */
  writeSync?(writes: readonly StoreWrite[], wanted?: StoreWriteResultsWanted): StoreWriteResult[] | undefined
}

/** Which results of a `writeSync()` call are read (see `StoreBatch.writeSync`). */
export interface StoreWriteResultsWanted {
  readonly slots: readonly unknown[]
  readonly count: number
  readonly rest: boolean
}

/**
 * The batch shared by the registered stores, or undefined when they do not all belong to one batch.
 *
 * @example
 * const batch = findStoreBatch(runtime.extensions.stores as Stores)
 */
export function findStoreBatch(stores: BatchedStores): StoreBatch | undefined {
  const batch = (stores.sessions as { batch?: StoreBatch }).batch
  if (batch === undefined || batch.specificationVersion !== 'v1') return undefined
  const own = batch.stores
  return own.sessions === stores.sessions && own.runs === stores.runs && own.executions === stores.executions && own.snapshots === stores.snapshots
    ? batch
    : undefined
}
