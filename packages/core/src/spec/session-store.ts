// SessionStore, spec v1: sessions and their append-only log with gap-free sequence numbers.
import type { StoreBatch } from './store-batch.js'
import type { JsonObject } from './json.js'
import type { ModelMessage } from './messages.js'

/** A session as stored: its id, the resource (user, tenant) it belongs to, metadata, its last `seq` and timestamps. */
export interface SessionRecord {
  id: string
  /** A user / tenant / resource the session belongs to (memory scopes use it). */
  resourceId?: string
  title?: string
  metadata: JsonObject
  /** Sequence number of the last entry, 0 when the log is empty. */
  lastSeq: number
  createdAt: number
  updatedAt: number
}

/** A compaction marker in the session log: the context window starts after `throughSeq`, with the strategy's summary (if any) in its place. */
export interface CompactionRecord {
  /** Entries with `seq <= throughSeq` are replaced in the context by `summary`. */
  throughSeq: number
  strategy: string
  summary?: string
  /**
   * Messages kept in the context although the cut passed them: the latest user message, when no user message
   * would remain after the cut (a long run's own question is never compacted away). Set by the CompactionService.
   */
  carried?: Array<{ seq: number; message: ModelMessage }>
  tokensBefore?: number
  tokensAfter?: number
}

/** What is appended: a message, or a compaction marker. The original messages are never removed. */
export type SessionEntryInput =
  { kind: 'message'; message: ModelMessage; runId?: string } | { kind: 'compaction'; compaction: CompactionRecord; runId?: string }

/** An entry of the session log as read back: a message or a compaction marker, with its gap-free `seq` and time. */
export type SessionEntry = SessionEntryInput & {
  sessionId: string
  /** 1, 2, 3… per session, gap-free. */
  seq: number
  createdAt: number
}

/** Options of `SessionStore.append`: the fencing token of the writer (a lower one than the newest seen fails with `StaleFenceError`). */
export interface AppendOptions {
  /**
   * Fencing token of the writer's session lease. A store that supports fencing
   * records the highest token seen per session and rejects a lower one with `StaleFenceError`.
   */
  fence?: number
}

/** Bounds (`after`, `before`, `limit`) take any number but `NaN`, which is rejected with a `ConfigurationError` (see `ListRunsOptions`). */
export interface ListEntriesOptions {
  /** Only entries with `seq > after`. */
  after?: number
  /** Only entries with `seq < before`. */
  before?: number
  limit?: number
  order?: 'asc' | 'desc'
  kind?: 'message' | 'compaction'
}

/** `limit` and `before` take any number but `NaN`, which is rejected with a `ConfigurationError` (see `ListRunsOptions`). */
export interface ListSessionsOptions {
  resourceId?: string
  limit?: number
  /** Sessions updated strictly before this time (pagination, newest first). */
  before?: number
}

/** Spec v1: sessions and their append-only log with gap-free `seq`, fenced writes and compaction markers. Check an implementation with `describeSessionStore` from `@spindle/testing`. */
export interface SessionStore {
  readonly specificationVersion: 'v1'
  /** Optional: the backend's atomic multi-store writes (the same object on its sessions, runs, executions and snapshots stores). */
  readonly batch?: StoreBatch
  createSession(input?: { id?: string; resourceId?: string; title?: string; metadata?: JsonObject }): Promise<SessionRecord>
  getSession(id: string): Promise<SessionRecord | undefined>
  /** Newest first (by `updatedAt`, then id). */
  listSessions(options?: ListSessionsOptions): Promise<SessionRecord[]>
  updateSession(id: string, patch: { title?: string; metadata?: JsonObject }): Promise<SessionRecord>
  /** Deletes the session and its whole log. */
  deleteSession(id: string): Promise<void>
  /** Appends atomically, assigning `lastSeq + 1…`; throws `NotFoundError` for an unknown session. */
  append(sessionId: string, entries: SessionEntryInput[], options?: AppendOptions): Promise<SessionEntry[]>
  listEntries(sessionId: string, options?: ListEntriesOptions): Promise<SessionEntry[]>
}
