// The one code path of every batched write: a store prepares a write (checks and JSON serialization, outside
// any transaction) and returns the function that applies it; a single method or a SqliteStoreBatch runs that.
import type { StoreWrite, StoreWriteResult } from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'
import { mapSqliteError } from './map-sqlite-error.js'

/** Prepares one write: throws when a value cannot be stored; returns a function that applies it synchronously. */
export const prepareWrite = Symbol('spindle.sqlite.prepareWrite')

/** Runs a prepared write's statements; the caller holds the transaction (or the write is one statement). */
export type ApplyWrite = () => StoreWriteResult

export interface BatchableSqliteStore {
  [prepareWrite](write: StoreWrite): ApplyWrite
}

/** A store's transaction wrapper, created once: `BEGIN IMMEDIATE`, apply, `COMMIT` (or `ROLLBACK` on a throw). */
export type WriteTransaction = BetterSqlite3.Transaction<(apply: ApplyWrite) => StoreWriteResult>

export function writeTransaction(database: BetterSqlite3.Database): WriteTransaction {
  return database.transaction((apply: ApplyWrite) => apply())
}

/**
 * A single-store method: prepares `write`, applies it in `transaction` (or alone, for a one-statement write),
 * and maps errors like every method of the store.
 */
export function runWrite(store: BatchableSqliteStore, transaction: WriteTransaction | undefined, write: StoreWrite): StoreWriteResult {
  try {
    const apply = store[prepareWrite](write)
    return transaction === undefined ? apply() : transaction.immediate(apply)
  } catch (error) {
    throw mapSqliteError(error, describeWrite(write))
  }
}

/** What a write does, for error messages: `append to session "s1"`. */
export function describeWrite(write: StoreWrite): string {
  switch (write.type) {
    case 'session.append':
      return `append to session "${write.sessionId}"`
    case 'execution.start':
      return `start execution "${write.execution.key}"`
    case 'execution.finish':
      return `finish execution "${write.key}"`
    case 'run.events':
      return `append events to run "${write.runId}"`
    case 'run.update':
      return `update run "${write.runId}"`
    case 'snapshot.save':
      return `save snapshot ${write.snapshot.version} of run "${write.snapshot.runId}"`
  }
}
