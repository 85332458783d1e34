// SQLite SessionStore: sessions plus their append-only log, gap-free seq assigned under BEGIN IMMEDIATE, fencing.
import {
  DuplicateError,
  NotFoundError,
  SequenceConflictError,
  StaleFenceError,
  type AppendOptions,
  type CompactionRecord,
  type JsonObject,
  type ListEntriesOptions,
  type ListSessionsOptions,
  type ModelMessage,
  type SessionEntry,
  type SessionEntryInput,
  type SessionRecord,
  type SessionStore,
  type StoreBatch,
  type StoreWrite,
} from '@spindle/core'
import { rejectNaNListBounds, timeOrderedId } from '@spindle/core/plugin-kit'
import type BetterSqlite3 from 'better-sqlite3'
import { mapSqliteError, withSqliteErrors } from './map-sqlite-error.js'
import { StatementCache } from './statement-cache.js'
import { assertKey, fromJsonText, sqlLimit, toJsonText } from './sqlite-values.js'
import { type ApplyWrite, prepareWrite, runWrite } from './sqlite-write.js'
import { type GroupCommit, groupCommitOf } from './group-commit.js'

interface SessionRow {
  id: string
  resource_id: string | null
  data: string
  fence: number | null
  created_at: number
  updated_at: number
}

/** A session row with what its log adds: the last entry's seq and time (null for an empty log). */
interface SessionView extends SessionRow {
  last_seq: number | null
  last_at: number | null
}

/** A session row with its log's last entry joined (searches on the log's key, never a scan of it). */
const withLastEntry = `FROM sessions s LEFT JOIN session_entries e
  ON e.session_id = s.id AND e.seq = (SELECT max(seq) FROM session_entries WHERE session_id = s.id)`

/** The session row and its log's last entry, in one statement. */
const sessionView = `SELECT s.id, s.resource_id, s.data, s.fence, s.created_at, s.updated_at, e.seq AS last_seq, e.created_at AS last_at ${withLastEntry}`

/** What an append reads: the session row's fence and time and its log's last entry (one string, not built per call). */
const appendView = `SELECT s.fence, s.updated_at, e.seq AS last_seq, e.created_at AS last_at ${withLastEntry} WHERE s.id = ?`

/**
 * An entry row as one JSON array `[seq, isCompaction, createdAt, runId | null, body]`, built by SQLite: the body
 * column already holds JSON (written by `toJsonText`), and `json_quote` escapes the run id.
 */
const entryAsJson = `'[' || seq || ',' || (kind = 'compaction') || ',' || created_at || ',' || coalesce(json_quote(run_id), 'null') || ',' || body || ']'`

/** An entry row parsed from `entryAsJson`. */
type EntryJson = [seq: number, isCompaction: 0 | 1, createdAt: number, runId: string | null, body: JsonObject]

/** Stored in `sessions.data`: the free-text fields, as JSON so that every code unit round-trips. */
interface SessionData {
  title?: string
  metadata: JsonObject
}

const farPast = -Number.MAX_SAFE_INTEGER
const farFuture = Number.MAX_SAFE_INTEGER

/**
 * Sessions and their message log in SQLite. `append` costs O(entries appended): it reads the log's last seq
 * (one search on the `(session_id, seq)` key) and inserts; the session row is written only when a newer fence
 * arrives. A session's `lastSeq` and `updatedAt` are read from its log. `listEntries` is a range scan on the key.
 *
 * @example
 * const sessions = new SqliteSessionStore(database)
 * const session = await sessions.createSession({ title: 'demo' })
 * await sessions.append(session.id, [{ kind: 'message', message: { role: 'user', content: 'hi' } }])
 */
export class SqliteSessionStore implements SessionStore {
  readonly specificationVersion = 'v1' as const
  /** Set by `sqliteStores()`: the batch shared by the sessions, runs, executions and snapshots stores of one database. */
  batch?: StoreBatch
  readonly #database: BetterSqlite3.Database
  readonly #sql: StatementCache
  /** The connection's group commit: every write of this store commits through it. */
  readonly #group: GroupCommit

  constructor(database: BetterSqlite3.Database) {
    this.#database = database
    this.#sql = new StatementCache(database)
    this.#group = groupCommitOf(database)
  }

  async createSession(input: { id?: string; resourceId?: string; title?: string; metadata?: JsonObject } = {}): Promise<SessionRecord> {
    const id = assertKey(input.id ?? timeOrderedId(), 'Session id')
    if (input.resourceId !== undefined) assertKey(input.resourceId, 'Session resourceId')
    const data: SessionData = { ...(input.title !== undefined && { title: input.title }), metadata: input.metadata ?? {} }
    const dataText = toJsonText(data)
    return this.#group
      .submit(() => {
        const now = Date.now()
        const result = this.#sql
          .get(
            `INSERT INTO sessions (id, resource_id, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (id) DO NOTHING`,
          )
          .run(id, input.resourceId ?? null, dataText, now, now)
        if (result.changes === 0) {
          throw new DuplicateError(`[spindle/store-sqlite] Session "${id}" already exists; pick another id or load it with getSession`)
        }
        return toRecord({
          id,
          resource_id: input.resourceId ?? null,
          data: dataText,
          fence: null,
          created_at: now,
          updated_at: now,
          last_seq: null,
          last_at: null,
        })
      })
      .catch((error: unknown) => {
        throw mapSqliteError(error, `create session "${id}"`)
      })
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    return withSqliteErrors(`read session "${id}"`, () => {
      const row = this.#sql.get(`${sessionView} WHERE s.id = ?`).get(id) as SessionView | undefined
      return row === undefined ? undefined : toRecord(row)
    })
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionRecord[]> {
    rejectNaNListBounds('store-sqlite', 'listSessions', options)
    return withSqliteErrors('list sessions', () => {
      // Sorted per call on the updatedAt each session's log gives (a rare call; an append writes the log only).
      const before = options.before ?? farFuture
      const limit = sqlLimit(options.limit)
      const order = 'max(updated_at, coalesce(last_at, updated_at))'
      const rows =
        options.resourceId === undefined
          ? this.#sql.get(`SELECT * FROM (${sessionView}) WHERE ${order} < ? ORDER BY ${order} DESC, id DESC LIMIT ?`).all(before, limit)
          : this.#sql
              .get(`SELECT * FROM (${sessionView} WHERE s.resource_id = ?) WHERE ${order} < ? ORDER BY ${order} DESC, id DESC LIMIT ?`)
              .all(options.resourceId, before, limit)
      return (rows as SessionView[]).map(toRecord)
    })
  }

  async updateSession(id: string, patch: { title?: string; metadata?: JsonObject }): Promise<SessionRecord> {
    // Written now, after the writes submitted before it (the group's), as a store that commits each call would.
    this.#group.flush()
    return withSqliteErrors(`update session "${id}"`, () =>
      this.#database
        .transaction(() => {
          const row = this.#requireRow(id)
          const data = fromJsonText<SessionData>(row.data)
          if (patch.title !== undefined) data.title = patch.title
          if (patch.metadata !== undefined) data.metadata = patch.metadata
          const updatedAt = Math.max(Date.now(), row.updated_at, row.last_at ?? row.updated_at)
          const dataText = toJsonText(data)
          this.#sql.get('UPDATE sessions SET data = ?, updated_at = ? WHERE id = ?').run(dataText, updatedAt, id)
          return toRecord({
            id: row.id,
            resource_id: row.resource_id,
            data: dataText,
            fence: row.fence,
            created_at: row.created_at,
            updated_at: updatedAt,
            last_seq: row.last_seq,
            last_at: row.last_at,
          })
        })
        .immediate(),
    )
  }

  async deleteSession(id: string): Promise<void> {
    this.#group.flush()
    withSqliteErrors(`delete session "${id}"`, () =>
      this.#database
        .transaction(() => {
          // Explicit, so the log goes even on a connection opened without foreign_keys.
          this.#sql.get('DELETE FROM session_entries WHERE session_id = ?').run(id)
          this.#sql.get('DELETE FROM sessions WHERE id = ?').run(id)
        })
        .immediate(),
    )
  }

  async append(sessionId: string, entries: SessionEntryInput[], options: AppendOptions = {}): Promise<SessionEntry[]> {
    return runWrite(this.#group, this, { type: 'session.append', sessionId, entries, fence: options.fence }) as Promise<SessionEntry[]>
  }

  /** Checks and serializes an append (one write of a batch, or `append` itself); returns the function that writes it. */
  [prepareWrite](write: StoreWrite): ApplyWrite {
    if (write.type !== 'session.append') throw new TypeError(`[spindle/store-sqlite] the session store cannot apply "${write.type}"`)
    // Serialize before taking the write lock: a value that cannot be stored fails before anything is written.
    const { entries } = write
    const bodies: string[] = []
    for (const entry of entries) {
      if (entry.runId !== undefined) assertKey(entry.runId, 'Entry runId')
      bodies.push(entry.kind === 'message' ? toJsonText(entry.message) : toJsonText(entry.compaction))
    }
    return () => this.#append(write, bodies)
  }

  /**
   * Inside the write transaction: assigns `lastSeq + 1…` after the log's last entry and inserts; the session row
   * is written only to store a newer fence. Entry times never go backwards within a session (the clock may).
   */
  #append(write: StoreWrite & { type: 'session.append' }, bodies: string[]): SessionEntry[] {
    const { sessionId, entries } = write
    // One statement: the session row and its log's last entry (a search on the log's key from its end).
    const row = this.#sql.get(appendView).get(sessionId) as Pick<SessionView, 'fence' | 'updated_at' | 'last_seq' | 'last_at'> | undefined
    if (row === undefined) throw missingSession(sessionId)
    const lastSeq = row.last_seq ?? 0
    if (write.expectedLastSeq !== undefined && write.expectedLastSeq !== lastSeq) {
      throw new SequenceConflictError(
        `[spindle/store-sqlite] Append to session "${sessionId}" expected lastSeq ${write.expectedLastSeq}, found ${lastSeq}: another writer appended first; re-read the log and retry`,
        { details: { sessionId, expectedLastSeq: write.expectedLastSeq, lastSeq } },
      )
    }
    let fence = row.fence
    if (write.fence !== undefined) {
      if (fence !== null && write.fence < fence) {
        throw new StaleFenceError(
          `[spindle/store-sqlite] Append to session "${sessionId}" carries fence ${write.fence}, older than ${fence}: this writer lost its session lease; stop writing and re-acquire the session`,
          { details: { sessionId, fence: write.fence, currentFence: fence } },
        )
      }
      fence = write.fence
    }
    // The session's updatedAt is the later of its row's and its last entry's time: never before either.
    const now = Math.max(Date.now(), row.updated_at, row.last_at ?? 0)
    const insert = this.#sql.get('INSERT INTO session_entries (session_id, seq, kind, run_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?)')
    // The caller gets entries built on its own input (the store keeps no objects, so nothing is shared), not a
    // parse of the JSON just written.
    const appended: SessionEntry[] = []
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index]!
      const seq = lastSeq + index + 1
      insert.run(sessionId, seq, entry.kind, entry.runId ?? null, bodies[index], now)
      appended.push(appendedEntry(entry, sessionId, seq, now))
    }
    if (fence !== row.fence) this.#sql.get('UPDATE sessions SET fence = ? WHERE id = ?').run(fence, sessionId)
    return appended
  }

  async listEntries(sessionId: string, options: ListEntriesOptions = {}): Promise<SessionEntry[]> {
    rejectNaNListBounds('store-sqlite', 'listEntries', options)
    return withSqliteErrors(`list entries of session "${sessionId}"`, () => {
      // A range scan on the (session_id, seq) primary key. Compactions are read through their own partial index
      // (forced, with the literal its WHERE names): "the latest compaction" must not walk every message.
      // Other kinds filter the key range: compactions are rare, so it skips next to nothing.
      const order = options.order === 'desc' ? 'DESC' : 'ASC'
      const source =
        options.kind === 'compaction'
          ? "session_entries INDEXED BY session_entries_compactions WHERE kind = 'compaction' AND"
          : options.kind === undefined
            ? 'session_entries WHERE'
            : 'session_entries WHERE kind = ? AND'
      // Each row comes back as one JSON text (see `entryAsJson`), read with `pluck`: better-sqlite3 builds a JS object
      // per row of several columns, which cost more than the parse itself (10,000 entries: 15.7 ms against 10.0).
      const statement = this.#sql.pluck(`SELECT ${entryAsJson} FROM ${source} session_id = ? AND seq > ? AND seq < ? ORDER BY seq ${order} LIMIT ?`)
      const after = options.after ?? farPast
      const before = options.before ?? farFuture
      const limit = sqlLimit(options.limit)
      const rows = (
        options.kind === undefined || options.kind === 'compaction'
          ? statement.all(sessionId, after, before, limit)
          : statement.all(options.kind, sessionId, after, before, limit)
      ) as string[]
      const entries: SessionEntry[] = []
      for (const row of rows) entries.push(toEntry(sessionId, fromJsonText<EntryJson>(row)))
      return entries
    })
  }

  #requireRow(id: string): SessionView {
    const row = this.#sql.get(`${sessionView} WHERE s.id = ?`).get(id) as SessionView | undefined
    if (row === undefined) throw missingSession(id)
    return row
  }
}

function missingSession(id: string): NotFoundError {
  return new NotFoundError(`[spindle/store-sqlite] Session "${id}" does not exist; create it with createSession first`)
}

function toRecord(row: SessionView): SessionRecord {
  const data = fromJsonText<SessionData>(row.data)
  return {
    id: row.id,
    ...(row.resource_id !== null && { resourceId: row.resource_id }),
    ...(data.title !== undefined && { title: data.title }),
    metadata: data.metadata,
    lastSeq: row.last_seq ?? 0,
    createdAt: row.created_at,
    updatedAt: row.last_at === null ? row.updated_at : Math.max(row.updated_at, row.last_at),
  }
}

// The two builders below write every field out: on Node 20, V8 takes a slow path (microseconds) for an object
// spread followed by keys the source lacks, and these run for every entry appended or read.

/** The entry as appended: the caller's own message or compaction object (the store keeps none, so nothing is shared). */
function appendedEntry(entry: SessionEntryInput, sessionId: string, seq: number, createdAt: number): SessionEntry {
  if (entry.kind === 'message') {
    return entry.runId === undefined
      ? { kind: 'message', message: entry.message, sessionId, seq, createdAt }
      : { kind: 'message', message: entry.message, runId: entry.runId, sessionId, seq, createdAt }
  }
  return entry.runId === undefined
    ? { kind: 'compaction', compaction: entry.compaction, sessionId, seq, createdAt }
    : { kind: 'compaction', compaction: entry.compaction, runId: entry.runId, sessionId, seq, createdAt }
}

function toEntry(sessionId: string, [seq, isCompaction, createdAt, runId, body]: EntryJson): SessionEntry {
  if (isCompaction === 0) {
    const message = body as unknown as ModelMessage
    return runId === null ? { kind: 'message', message, sessionId, seq, createdAt } : { kind: 'message', message, runId, sessionId, seq, createdAt }
  }
  const compaction = body as unknown as CompactionRecord
  return runId === null ? { kind: 'compaction', compaction, sessionId, seq, createdAt } : { kind: 'compaction', compaction, runId, sessionId, seq, createdAt }
}
