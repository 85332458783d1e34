// Internal bookkeeping shared by a RuntimeStore and its snapshots: value entries and cleanup records.
// Snapshots copy references to these objects, so "ran" and "disposed" are seen by the whole family.

/** One value as set by `set()`; shared (never mutated but for its disposal mark) by a store and its snapshots. */
export interface RuntimeEntry {
  readonly key: string
  readonly value: unknown
  /** Set when a cleanup bound to this value started: reading it afterwards fails in every store that holds it. */
  disposedAt: Date | undefined
  disposedBy: string | undefined
}

export type CleanupState = 'pending' | 'running' | 'done'

/** One `onCleanup` (or resource `dispose`) registration; runs exactly once across the family. */
export interface CleanupRecord {
  readonly key: string
  readonly handler: (value: unknown) => unknown
  /** The values this cleanup releases; empty until the key is set (see `RuntimeStore.onCleanup`). */
  entries: RuntimeEntry[]
  state: CleanupState
  /** Settles (never rejects) once the handler finished; lets a concurrent disposer wait for it. */
  completion: Promise<void> | undefined
  settle: (() => void) | undefined
}

export function createCleanupRecord(key: string, handler: (value: unknown) => unknown, entries: RuntimeEntry[]): CleanupRecord {
  return { key, handler, entries, state: 'pending', completion: undefined, settle: undefined }
}

export function createEntry(key: string, value: unknown): RuntimeEntry {
  return { key, value, disposedAt: undefined, disposedBy: undefined }
}

/**
 * Claims the record synchronously (so no other disposer of the family can claim it) and marks
 * its values disposed. Returns false when someone else already claimed it.
 */
export function claimCleanup(record: CleanupRecord, disposer: string, at: Date): boolean {
  if (record.state !== 'pending') return false
  record.state = 'running'
  record.completion = new Promise<void>((resolve) => {
    record.settle = resolve
  })
  for (const entry of record.entries) {
    if (entry.disposedAt === undefined) {
      entry.disposedAt = at
      entry.disposedBy = disposer
    }
  }
  return true
}

/** Runs a claimed record's handler; resolves with what it threw (undefined when it succeeded). */
export async function runCleanup(record: CleanupRecord): Promise<{ failed: false } | { failed: true; error: unknown }> {
  try {
    await record.handler(record.entries[0]?.value)
    return { failed: false }
  } catch (error) {
    return { failed: true, error }
  } finally {
    record.state = 'done'
    record.settle?.()
    record.settle = undefined
  }
}
