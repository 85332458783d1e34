// The one code path of every batched write: a store prepares a write (checks and JSON serialization, outside
// any transaction) and returns the function that applies it; a single method or a SqliteStoreBatch runs that.
import type { StoreWrite, StoreWriteResult } from '@spindle/core'
import type { GroupCommit } from './group-commit.js'
import { mapSqliteError } from './map-sqlite-error.js'

/** Prepares one write: throws when a value cannot be stored; returns a function that applies it synchronously. */
export const prepareWrite = Symbol('spindle.sqlite.prepareWrite')

/** Runs a prepared write's statements; the caller holds the transaction (or the write is one statement). */
export type ApplyWrite = () => StoreWriteResult

export interface BatchableSqliteStore {
  [prepareWrite](write: StoreWrite): ApplyWrite
}

/**
 * A single-store method: prepares `write` (its checks and serialization, now), applies it in the connection's next
 * group commit (its own transaction when alone), and maps errors like every method of the store.
 */
export function runWrite(group: GroupCommit, store: BatchableSqliteStore, write: StoreWrite): Promise<StoreWriteResult> {
  let apply: ApplyWrite
  try {
    apply = store[prepareWrite](write)
  } catch (error) {
    return Promise.reject(mapSqliteError(error, describeWrite(write)))
  }
  return group.submit(apply).catch((error: unknown) => {
    throw mapSqliteError(error, describeWrite(write))
  })
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
