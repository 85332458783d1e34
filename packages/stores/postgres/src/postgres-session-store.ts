// SessionStore on PostgreSQL: gap-free per-session seq from `UPDATE … RETURNING last_seq`, fencing and the insert in the same statement.
import {
  type AppendOptions,
  type JsonObject,
  type ListEntriesOptions,
  type ListSessionsOptions,
  NotFoundError,
  type SessionEntry,
  type SessionEntryInput,
  type SessionRecord,
  type SessionStore,
  SequenceConflictError,
  StaleFenceError,
  type StoreBatch,
} from '@spindle/core'
import { rejectNaNListBounds, timeOrderedId } from '@spindle/core/plugin-kit'
import { assertKey, fromJsonb, fromText, toJsonbText, toText } from './jsonb-text.js'
import { mapPostgresError } from './map-postgres-error.js'
import type { SqlDatabase, SqlExecutor } from './sql-database.js'
import { afterParameter, beforeParameter, limitParameter } from './list-bounds.js'

interface SessionRow {
  id: string
  resource_id: string | null
  title: string | null
  metadata: JsonObject
  last_seq: string | number
  created_at: string | number
  updated_at: string | number
}

interface EntryRow {
  session_id: string
  seq: string | number
  kind: 'message' | 'compaction'
  body: unknown
  run_id: string | null
  created_at: string | number
}

/**
 * @example
 * const sessions = new PostgresSessionStore(poolDatabase(pool), '"spindle"')
 * const session = await sessions.createSession({ title: 'demo' })
 */
export class PostgresSessionStore implements SessionStore {
  readonly specificationVersion = 'v1' as const
  readonly #database: SqlDatabase
  readonly #s: string
  /** Set by `postgresStores()`: the batch shared by the four stores of one set. */
  batch?: StoreBatch

  /** `schema` is already quoted. */
  constructor(database: SqlDatabase, schema: string) {
    this.#database = database
    this.#s = schema
  }

  async createSession(input: { id?: string; resourceId?: string; title?: string; metadata?: JsonObject } = {}): Promise<SessionRecord> {
    const id = input.id ?? timeOrderedId()
    const now = Date.now()
    try {
      assertKey(id, 'session id')
      if (input.resourceId !== undefined) assertKey(input.resourceId, 'session resourceId')
      const { rows } = await this.#database.query<SessionRow>(
        `INSERT INTO ${this.#s}.sessions (id, resource_id, title, metadata, created_at, updated_at) VALUES ($1, $2, $3, $4::jsonb, $5, $5) RETURNING *`,
        [id, input.resourceId ?? null, toText(input.title ?? null), toJsonbText(input.metadata ?? {}), now],
      )
      return toSession(rows[0]!)
    } catch (error) {
      throw mapPostgresError(error, `creating session "${id}"`)
    }
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    try {
      const { rows } = await this.#database.query<SessionRow>(`SELECT * FROM ${this.#s}.sessions WHERE id = $1`, [id])
      return rows[0] === undefined ? undefined : toSession(rows[0])
    } catch (error) {
      throw mapPostgresError(error, `reading session "${id}"`)
    }
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionRecord[]> {
    rejectNaNListBounds('store-postgres', 'listSessions', options)
    try {
      const { rows } = await this.#database.query<SessionRow>(
        `SELECT * FROM ${this.#s}.sessions
         WHERE ($1::text IS NULL OR resource_id = $1) AND ($2::bigint IS NULL OR updated_at < $2)
         ORDER BY updated_at DESC, id COLLATE "C" DESC LIMIT $3`,
        [options.resourceId ?? null, beforeParameter(options.before), limitParameter(options.limit)],
      )
      return rows.map(toSession)
    } catch (error) {
      throw mapPostgresError(error, 'listing sessions')
    }
  }

  async updateSession(id: string, patch: { title?: string; metadata?: JsonObject }): Promise<SessionRecord> {
    let rows: SessionRow[]
    try {
      ;({ rows } = await this.#database.query<SessionRow>(
        `UPDATE ${this.#s}.sessions SET
           title = CASE WHEN $2::boolean THEN $3 ELSE title END,
           metadata = COALESCE($4::jsonb, metadata),
           updated_at = GREATEST(updated_at, $5)
         WHERE id = $1 RETURNING *`,
        [id, patch.title !== undefined, toText(patch.title ?? null), patch.metadata === undefined ? null : toJsonbText(patch.metadata), Date.now()],
      ))
    } catch (error) {
      throw mapPostgresError(error, `updating session "${id}"`)
    }
    if (rows[0] === undefined) throw missingSession(id)
    return toSession(rows[0])
  }

  async deleteSession(id: string): Promise<void> {
    try {
      await this.#database.query(`DELETE FROM ${this.#s}.sessions WHERE id = $1`, [id])
    } catch (error) {
      throw mapPostgresError(error, `deleting session "${id}"`)
    }
  }

  async append(sessionId: string, entries: SessionEntryInput[], options: AppendOptions = {}): Promise<SessionEntry[]> {
    try {
      return await appendToSession(this.#database, this.#s, { sessionId, entries, fence: options.fence })
    } catch (error) {
      throw mapPostgresError(error, `appending to session "${sessionId}"`)
    }
  }

  async listEntries(sessionId: string, options: ListEntriesOptions = {}): Promise<SessionEntry[]> {
    rejectNaNListBounds('store-postgres', 'listEntries', options)
    const direction = options.order === 'desc' ? 'DESC' : 'ASC'
    try {
      const { rows } = await this.#database.query<EntryRow>(
        `SELECT * FROM ${this.#s}.session_entries
         WHERE session_id = $1 AND ($2::bigint IS NULL OR seq > $2) AND ($3::bigint IS NULL OR seq < $3) AND ($4::text IS NULL OR kind = $4)
         ORDER BY seq ${direction} LIMIT $5`,
        [sessionId, afterParameter(options.after), beforeParameter(options.before), options.kind ?? null, limitParameter(options.limit)],
      )
      return rows.map(toEntry)
    } catch (error) {
      throw mapPostgresError(error, `listing entries of session "${sessionId}"`)
    }
  }
}

export interface SessionAppend {
  sessionId: string
  entries: readonly SessionEntryInput[]
  fence?: number
  /** The session's `lastSeq` the append requires (a batch write's `expectedLastSeq`). */
  expectedLastSeq?: number
}

/**
 * `append` as one statement (the single method and a batch write share it): the UPDATE reserves the seq range and
 * checks and records the fence under the session row's lock, and the INSERT of the same statement writes the
 * entries — so it is atomic alone, and one round trip. Throws pg errors unmapped (the caller names the action).
 */
export async function appendToSession(executor: SqlExecutor, schema: string, append: SessionAppend): Promise<SessionEntry[]> {
  const { sessionId, entries } = append
  const now = Date.now()
  const fence = append.fence ?? null
  const expected = append.expectedLastSeq ?? null
  const reserve = `UPDATE ${schema}.sessions SET
       last_seq = last_seq + $2::bigint,
       updated_at = CASE WHEN $2::bigint > 0 THEN GREATEST(updated_at, $3::bigint) ELSE updated_at END,
       fence = COALESCE($4::bigint, fence)
     WHERE id = $1 AND ($4::bigint IS NULL OR fence IS NULL OR fence <= $4::bigint) AND ($5::bigint IS NULL OR last_seq = $5::bigint)
     RETURNING last_seq`
  let rows: unknown[]
  if (entries.length === 0) {
    ;({ rows } = await executor.query(reserve, [sessionId, 0, now, fence, expected]))
  } else {
    for (const entry of entries) if (entry.runId !== undefined) assertKey(entry.runId, 'entry runId')
    const payload = toJsonbText(
      entries.map((entry) => ({ kind: entry.kind, body: entry.kind === 'message' ? entry.message : entry.compaction, run_id: entry.runId ?? null })),
    )
    // No row reserved (missing session, stale fence, other lastSeq) → nothing inserted, no row returned.
    ;({ rows } = await executor.query<EntryRow>(
      `WITH reserved AS (${reserve})
       INSERT INTO ${schema}.session_entries (session_id, seq, kind, body, run_id, created_at)
       SELECT $1, r.last_seq - $2::bigint + e.ordinality, e.value->>'kind', e.value->'body', e.value->>'run_id', $3::bigint
       FROM reserved AS r CROSS JOIN jsonb_array_elements($6::jsonb) WITH ORDINALITY AS e
       RETURNING *`,
      [sessionId, entries.length, now, fence, expected, payload],
    ))
  }
  if (rows.length === 0) throw await rejectedAppend(executor, schema, append)
  return entries.length === 0 ? [] : (rows as EntryRow[]).map(toEntry).sort((a, b) => a.seq - b.seq)
}

/** Why an append reserved nothing: the session is missing, the log moved past `expectedLastSeq`, or the fence is stale. */
async function rejectedAppend(executor: SqlExecutor, schema: string, append: SessionAppend): Promise<Error> {
  const { sessionId, fence, expectedLastSeq } = append
  const { rows } = await executor.query<{ fence: string | null; last_seq: string | number }>(`SELECT fence, last_seq FROM ${schema}.sessions WHERE id = $1`, [
    sessionId,
  ])
  if (rows[0] === undefined) return missingSession(sessionId)
  const lastSeq = Number(rows[0].last_seq)
  if (expectedLastSeq !== undefined && lastSeq !== expectedLastSeq) {
    return new SequenceConflictError(
      `[spindle/store-postgres] append to session "${sessionId}" expected lastSeq ${expectedLastSeq}, found ${lastSeq}: another writer appended first; re-read the log and retry`,
      { details: { sessionId, expectedLastSeq, lastSeq } },
    )
  }
  return new StaleFenceError(
    `[spindle/store-postgres] append to session "${sessionId}" carries fence ${fence}, older than ${rows[0].fence}: this writer lost its session lease; stop writing and re-acquire the session`,
    { details: { sessionId, fence, current: Number(rows[0].fence) } },
  )
}

function missingSession(id: string): NotFoundError {
  return new NotFoundError(`[spindle/store-postgres] session "${id}" does not exist; create it with createSession first`)
}

function toSession(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    ...(row.resource_id !== null && { resourceId: row.resource_id }),
    ...(row.title !== null && { title: fromText(row.title) }),
    metadata: fromJsonb(row.metadata),
    lastSeq: Number(row.last_seq),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  }
}

function toEntry(row: EntryRow): SessionEntry {
  const base = { sessionId: row.session_id, seq: Number(row.seq), createdAt: Number(row.created_at), ...(row.run_id !== null && { runId: row.run_id }) }
  return row.kind === 'message'
    ? ({ kind: 'message', message: fromJsonb(row.body), ...base } as SessionEntry)
    : ({ kind: 'compaction', compaction: fromJsonb(row.body), ...base } as SessionEntry)
}
