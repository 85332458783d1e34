// In-memory SessionStore: sessions and their append-only log, gap-free sequence numbers and fencing.
import { cloneValue } from '../clone-value.js'
import { appendedEntry, entryOut, storedEntries } from './memory-copies.js'
import { sizedArray } from '../../util/sized-array.js'
import { timeOrderedId } from '../time-ordered-id.js'
import type { StoreBatch, StoreWrite } from '../../spec/store-batch.js'
import { applyWrite, type UndoLog, undoWrite } from './memory-write.js'
import { rejectNaNListBounds } from '../run-record-rules.js'
import { countRecords, evictSession, type MemoryRetention } from './memory-retention.js'
import { DuplicateError, NotFoundError, SequenceConflictError, StaleFenceError } from '../../errors/errors.js'
import type { JsonObject } from '../../spec/json.js'
import type {
  AppendOptions,
  ListEntriesOptions,
  ListSessionsOptions,
  SessionEntry,
  SessionEntryInput,
  SessionRecord,
  SessionStore,
} from '../../spec/session-store.js'

interface SessionState {
  record: SessionRecord
  entries: SessionEntry[]
  /** Highest fencing token seen on an append. */
  fence?: number
}

/**
 * The default SessionStore: everything lives in this instance's maps; values are deep-copied in and out, except
 * log entries, which are deep-copied in and frozen: a read returns them shared (immutable, so a caller can change
 * nothing the store holds), without a copy per entry.
 *
 * @example
 * const sessions = new MemorySessionStore()
 * const session = await sessions.createSession({ title: 'demo' })
 */
export class MemorySessionStore implements SessionStore {
  readonly specificationVersion = 'v1' as const
  /** Set by `memoryStores()`: the batch shared by the four stores of one set. */
  batch?: StoreBatch
  /** Set by `memoryStores()`: reading or appending to a finished session counts as a use of it. */
  retention?: MemoryRetention
  readonly #sessions = new Map<string, SessionState>()

  async createSession(input: { id?: string; resourceId?: string; title?: string; metadata?: JsonObject } = {}): Promise<SessionRecord> {
    const id = input.id ?? timeOrderedId()
    if (this.#sessions.has(id)) throw new DuplicateError(`[spindle/store-memory] Session "${id}" already exists; pick another id or load it with getSession`)
    const now = Date.now()
    const record: SessionRecord = {
      id,
      ...(input.resourceId !== undefined && { resourceId: input.resourceId }),
      ...(input.title !== undefined && { title: input.title }),
      metadata: cloneValue(input.metadata ?? {}),
      lastSeq: 0,
      createdAt: now,
      updatedAt: now,
    }
    this.#sessions.set(id, { record, entries: [] })
    return cloneValue(record)
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    this.retention?.touch(id)
    const state = this.#sessions.get(id)
    return state === undefined ? undefined : cloneValue(state.record)
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionRecord[]> {
    rejectNaNListBounds('store-memory', 'listSessions', options)
    let records = [...this.#sessions.values()].map((state) => state.record)
    if (options.resourceId !== undefined) records = records.filter((record) => record.resourceId === options.resourceId)
    if (options.before !== undefined) records = records.filter((record) => record.updatedAt < options.before!)
    records.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    if (options.limit !== undefined) records = records.slice(0, Math.max(0, options.limit))
    return cloneValue(records)
  }

  async updateSession(id: string, patch: { title?: string; metadata?: JsonObject }): Promise<SessionRecord> {
    const state = this.#require(id)
    if (patch.title !== undefined) state.record.title = patch.title
    if (patch.metadata !== undefined) state.record.metadata = cloneValue(patch.metadata)
    state.record.updatedAt = Math.max(Date.now(), state.record.updatedAt)
    return cloneValue(state.record)
  }

  async deleteSession(id: string): Promise<void> {
    this.#sessions.delete(id)
    this.retention?.forget(id)
  }

  /** Removes the session and its log (retention). */
  [evictSession](id: string): void {
    this.#sessions.delete(id)
  }

  /** Sessions and log entries. */
  [countRecords](): { sessions: number; entries: number } {
    let entries = 0
    for (const state of this.#sessions.values()) entries += state.entries.length
    return { sessions: this.#sessions.size, entries }
  }

  async append(sessionId: string, entries: SessionEntryInput[], options: AppendOptions = {}): Promise<SessionEntry[]> {
    this.retention?.touch(sessionId)
    return this[applyWrite]({ type: 'session.append', sessionId, entries, fence: options.fence }) as SessionEntry[]
  }

  /** Appends (one write of a batch, or `append` itself); its undo takes the entries back out. */
  [applyWrite](write: StoreWrite, _resultWanted?: boolean, undo?: UndoLog): SessionEntry[] {
    if (write.type !== 'session.append') throw new TypeError(`[spindle/store-memory] the session store cannot apply "${write.type}"`)
    const { sessionId, entries, fence } = write
    const state = this.#require(sessionId)
    if (write.expectedLastSeq !== undefined && write.expectedLastSeq !== state.record.lastSeq) {
      throw new SequenceConflictError(
        `[spindle/store-memory] Append to session "${sessionId}" expected lastSeq ${write.expectedLastSeq}, found ${state.record.lastSeq}: another writer appended first; re-read the log and retry`,
      )
    }
    const { record } = state
    const now = Date.now()
    // Copy first, so a value that cannot be cloned fails before anything (the fence included) is written.
    const stored = storedEntries(entries, sessionId, record.lastSeq + 1, now)
    if (fence !== undefined && state.fence !== undefined && fence < state.fence) {
      throw new StaleFenceError(
        `[spindle/store-memory] Append to session "${sessionId}" carries fence ${fence}, older than ${state.fence}: this writer lost its session lease; stop writing and re-acquire the session`,
      )
    }
    undo?.record(this, write, state.fence, record.updatedAt, entries.length)
    if (fence !== undefined) state.fence = fence
    // The caller gets entries built on its own input objects (never on the stored copies), so nothing it
    // does with them can reach the store, and nothing is copied twice.
    const appended: SessionEntry[] = sizedArray(entries.length)
    for (let index = 0; index < entries.length; index++) {
      state.entries.push(stored[index]!)
      appended[index] = appendedEntry(entries[index]!, sessionId, stored[index]!.seq, now)
    }
    if (entries.length > 0) {
      record.lastSeq += entries.length
      record.updatedAt = Math.max(now, record.updatedAt)
    }
    return appended
  }

  /** Takes an append back (the newest write applied to the session): its entries out, the fence and time as they were. */
  [undoWrite](write: StoreWrite, fence: unknown, updatedAt: unknown, count: unknown): void {
    if (write.type !== 'session.append') return
    const state = this.#require(write.sessionId)
    state.entries.length -= count as number
    state.record.lastSeq -= count as number
    state.fence = fence as number | undefined
    state.record.updatedAt = updatedAt as number
  }

  async listEntries(sessionId: string, options: ListEntriesOptions = {}): Promise<SessionEntry[]> {
    rejectNaNListBounds('store-memory', 'listEntries', options)
    const state = this.#sessions.get(sessionId)
    if (state === undefined) return []
    const { after, before, kind } = options
    // Entry i holds seq i + 1 (gap-free), so the range is a slice, not a scan of the whole log.
    const from = Math.max(0, Math.min(state.entries.length, Math.floor(after ?? 0)))
    const to = before === undefined ? state.entries.length : Math.max(from, Math.min(state.entries.length, Math.ceil(before) - 1))
    // The newest few of a kind (the window's "latest compaction"): walked from the end, not a copy of the whole log.
    if (options.order === 'desc' && options.limit !== undefined && kind !== undefined) {
      const newest: SessionEntry[] = []
      const limit = Math.trunc(options.limit)
      for (let index = to - 1; index >= from && newest.length < limit; index--)
        if (state.entries[index]!.kind === kind) newest.push(entryOut(state.entries[index]!))
      return newest
    }
    let entries = state.entries.slice(from, to)
    if (kind !== undefined) entries = entries.filter((entry) => entry.kind === kind)
    if (options.order === 'desc') entries = entries.reverse()
    if (options.limit !== undefined) entries = entries.slice(0, Math.max(0, options.limit))
    // The array is the caller's; each entry is handed out shared when frozen (immutable), else copied.
    for (let index = 0; index < entries.length; index++) entries[index] = entryOut(entries[index]!)
    return entries
  }

  #require(id: string): SessionState {
    const state = this.#sessions.get(id)
    if (state === undefined) throw new NotFoundError(`[spindle/store-memory] Session "${id}" does not exist; create it with createSession first`)
    return state
  }
}
