// SQLite RunStore: run records (JSON, with indexed status / session / idempotency key) and each run's event log.
import {
  DuplicateError,
  NotFoundError,
  type AgentEvent,
  type ListRunsOptions,
  type NewRun,
  type RunClaimExpectation,
  type RunPatch,
  type RunRecord,
  type RunStore,
  type StoreBatch,
  type StoreWrite,
} from '@spindle/core'
import { applyRunPatch, rejectNaNListBounds, runClaimMatches } from '@spindle/core/plugin-kit'
import type BetterSqlite3 from 'better-sqlite3'
import { mapSqliteError, withSqliteErrors } from './map-sqlite-error.js'
import { StatementCache } from './statement-cache.js'
import { assertKey, fromJsonText, sqlLimit, toJsonText } from './sqlite-values.js'
import { type ApplyWrite, prepareWrite, runWrite } from './sqlite-write.js'
import { type GroupCommit, groupCommitOf } from './group-commit.js'

/** Events per row of `run_events` at most (see #appendEvents). */
const eventsPerRow = 64

const farFuture = Number.MAX_SAFE_INTEGER

/** A row of contiguous events, inserted only when no stored row of the run reaches its first seq (see #appendEvents). */
const insertAfterNewest = `INSERT INTO run_events (run_id, last_seq, first_seq, events) SELECT ?, ?, ?, ?
  WHERE NOT EXISTS (SELECT 1 FROM run_events WHERE run_id = ? AND last_seq >= ?)`

/**
 * Runs and their event logs in SQLite. `(sessionId, idempotencyKey)` is unique; appending an event whose
 * `(runId, seq)` is stored already is ignored, so a replayed batch is harmless.
 *
 * @example
 * const runs = new SqliteRunStore(database)
 * await runs.createRun({ id: 'run-1', sessionId: 's-1', request: { input: 'hi' } })
 */
export class SqliteRunStore implements RunStore {
  readonly specificationVersion = 'v1' as const
  /** Set by `sqliteStores()`: the batch shared by the sessions, runs, executions and snapshots stores of one database. */
  batch?: StoreBatch
  readonly #sql: StatementCache
  /** The connection's group commit: every write of this store commits through it. */
  readonly #group: GroupCommit

  constructor(database: BetterSqlite3.Database) {
    this.#sql = new StatementCache(database)
    this.#group = groupCommitOf(database)
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    assertKey(run.id, 'Run id')
    assertKey(run.sessionId, 'Run sessionId')
    if (run.idempotencyKey !== undefined) assertKey(run.idempotencyKey, 'Run idempotencyKey')
    return this.#group
      .submit(() => {
        if (this.#sql.get('SELECT 1 FROM runs WHERE id = ?').get(run.id) !== undefined) {
          throw new DuplicateError(`[spindle/store-sqlite] Run "${run.id}" already exists; use a fresh run id`)
        }
        if (run.idempotencyKey !== undefined && this.#findIdByKey(run.sessionId, run.idempotencyKey) !== undefined) {
          throw new DuplicateError(
            `[spindle/store-sqlite] Session "${run.sessionId}" already has a run with idempotency key "${run.idempotencyKey}"; load it with findRunByIdempotencyKey`,
            { details: { sessionId: run.sessionId, idempotencyKey: run.idempotencyKey } },
          )
        }
        const now = Date.now()
        const record: RunRecord = {
          id: run.id,
          sessionId: run.sessionId,
          status: run.status ?? 'queued',
          step: 0,
          usage: { inputTokens: 0, outputTokens: 0 },
          ...(run.idempotencyKey !== undefined && { idempotencyKey: run.idempotencyKey }),
          request: run.request,
          ...(run.lease !== undefined && { lease: run.lease }),
          metadata: run.metadata ?? {},
          createdAt: now,
          updatedAt: now,
          ...(run.startedAt !== undefined && { startedAt: run.startedAt }),
        }
        const text = toJsonText(record)
        this.#sql
          .get('INSERT INTO runs (id, session_id, status, idempotency_key, record, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(record.id, record.sessionId, record.status, record.idempotencyKey ?? null, text, now, now)
        return fromJsonText<RunRecord>(text)
      })
      .catch((error: unknown) => {
        throw mapSqliteError(error, `create run "${run.id}"`)
      })
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    return withSqliteErrors(`read run "${id}"`, () => {
      const row = this.#sql.get('SELECT record FROM runs WHERE id = ?').get(id) as { record: string } | undefined
      return row === undefined ? undefined : fromJsonText<RunRecord>(row.record)
    })
  }

  async findRunByIdempotencyKey(sessionId: string, key: string): Promise<RunRecord | undefined> {
    return withSqliteErrors(`find the run of session "${sessionId}" with idempotency key "${key}"`, () => {
      const row = this.#sql.get('SELECT record FROM runs WHERE session_id = ? AND idempotency_key = ?').get(sessionId, key) as { record: string } | undefined
      return row === undefined ? undefined : fromJsonText<RunRecord>(row.record)
    })
  }

  async updateRun(id: string, patch: RunPatch): Promise<RunRecord> {
    return runWrite(this.#group, this, { type: 'run.update', runId: id, patch }) as Promise<RunRecord>
  }

  /**
   * One conditional UPDATE: the record is read, checked against the expectation and patched, then written only if the
   * row still holds the very text read (`WHERE id = ? AND record = ?`), so a write from any connection in between
   * makes it read again (and then, usually, refuse).
   */
  async claimRun(id: string, expected: RunClaimExpectation, patch: RunPatch): Promise<RunRecord | undefined> {
    // Read and written now, after the writes submitted before it (the group's).
    this.#group.flush()
    return withSqliteErrors(`claim run "${id}"`, () => {
      for (;;) {
        const row = this.#sql.get('SELECT record FROM runs WHERE id = ?').get(id) as { record: string } | undefined
        if (row === undefined) throw new NotFoundError(`[spindle/store-sqlite] Run "${id}" does not exist; create it with createRun first`)
        const record = fromJsonText<RunRecord>(row.record)
        if (!runClaimMatches(record, expected)) return undefined
        const text = toJsonText(applyRunPatch(record, patch))
        const release = Object.hasOwn(patch, 'idempotencyKey') ? ', idempotency_key = NULL' : ''
        const { changes } = this.#sql
          .get(`UPDATE runs SET status = ?, record = ?, updated_at = ?${release} WHERE id = ? AND record = ?`)
          .run(record.status, text, record.updatedAt, id, row.record)
        if (changes === 1) return record
      }
    })
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunRecord[]> {
    rejectNaNListBounds('store-sqlite', 'listRuns', options)
    return withSqliteErrors('list runs', () => {
      const clauses = ['created_at < ?']
      const parameters: unknown[] = [options.before ?? farFuture]
      if (options.sessionId !== undefined) {
        clauses.push('session_id = ?')
        parameters.push(options.sessionId)
      }
      if (options.status !== undefined) {
        const statuses = [options.status].flat()
        clauses.push(`status IN (${statuses.map(() => '?').join(', ') || 'NULL'})`)
        parameters.push(...statuses)
      }
      parameters.push(sqlLimit(options.limit))
      const rows = this.#sql
        .get(`SELECT record FROM runs WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`)
        .all(...parameters) as Array<{ record: string }>
      return rows.map((row) => fromJsonText<RunRecord>(row.record))
    })
  }

  async appendEvents(runId: string, events: AgentEvent[]): Promise<void> {
    await runWrite(this.#group, this, { type: 'run.events', runId, events })
  }

  /** Checks and serializes a run update or an events append (one write of a batch, or the method itself). */
  [prepareWrite](write: StoreWrite): ApplyWrite {
    if (write.type === 'run.events') {
      // Serialized before the write lock is taken: a value that cannot be stored fails before anything is written.
      const { runId, events } = write
      const texts = events.map((event) => toJsonText(event))
      return () => this.#appendEvents(runId, events, texts)
    }
    if (write.type !== 'run.update') throw new TypeError(`[spindle/store-sqlite] the run store cannot apply "${write.type}"`)
    return () => this.#updateRun(write.runId, write.patch)
  }

  /**
   * Inside the write transaction: stores the events whose `(runId, seq)` is new. A row holds contiguous seqs
   * `first_seq..last_seq`, all stored, so the rows of a run never overlap and read back in seq order:
   * - the usual append (contiguous seqs after the run's newest) is one row (or one per `eventsPerRow` events);
   * - any other (a retry, seqs out of order or with gaps) keeps each new event as a row of its own.
   */
  #appendEvents(runId: string, events: AgentEvent[], texts: string[]): undefined {
    if (events.length === 0) return undefined
    const insert = this.#sql.get('INSERT INTO run_events (run_id, last_seq, first_seq, events) VALUES (?, ?, ?, ?)')
    const first = events[0]!.seq
    let contiguous = Number.isSafeInteger(first)
    for (let index = 1; contiguous && index < events.length; index++) contiguous = events[index]!.seq === first + index
    if (contiguous) {
      // The usual append (one row, after the run's newest seq) is one statement: inserted unless a stored row
      // reaches `first` already.
      if (events.length <= eventsPerRow) {
        const text = events.length === 1 ? `[${texts[0]}]` : `[${texts.join(',')}]`
        if (this.#sql.get(insertAfterNewest).run(runId, first + events.length - 1, first, text, runId, first).changes === 1) return undefined
      } else {
        const newest = this.#sql.get('SELECT last_seq FROM run_events WHERE run_id = ? ORDER BY last_seq DESC LIMIT 1').pluck().get(runId) as number | undefined
        if (newest === undefined || first > newest) {
          // At most eventsPerRow a row: a read that starts inside a row parses no more than that (a step streaming
          // 10,000 deltas is 157 rows, not one 2 MB array parsed again by every page of listEvents).
          for (let start = 0; start < events.length; start += eventsPerRow) {
            const end = Math.min(events.length, start + eventsPerRow)
            insert.run(runId, first + end - 1, first + start, `[${texts.slice(start, end).join(',')}]`)
          }
          return undefined
        }
      }
    }
    // The row covering `seq`, if any: the first whose last_seq >= seq, holding it when its first_seq <= seq.
    const covering = this.#sql.get('SELECT first_seq FROM run_events WHERE run_id = ? AND last_seq >= ? ORDER BY last_seq ASC LIMIT 1').pluck()
    const added = new Set<number>()
    for (let index = 0; index < events.length; index++) {
      const seq = events[index]!.seq
      if (added.has(seq)) continue
      const firstSeq = covering.get(runId, seq) as number | undefined
      if (firstSeq !== undefined && firstSeq <= seq) continue
      insert.run(runId, seq, seq, `[${texts[index]}]`)
      added.add(seq)
    }
    return undefined
  }

  /** Inside the write transaction: applies the patch to the stored record and returns it. */
  #updateRun(id: string, patch: RunPatch): RunRecord {
    const row = this.#sql.get('SELECT record FROM runs WHERE id = ?').get(id) as { record: string } | undefined
    if (row === undefined) throw new NotFoundError(`[spindle/store-sqlite] Run "${id}" does not exist; create it with createRun first`)
    const record = applyRunPatch(fromJsonText<RunRecord>(row.record), patch)
    // Releasing the idempotency key (present in the patch, `undefined`) frees its unique index entry too.
    const update = Object.hasOwn(patch, 'idempotencyKey')
      ? 'UPDATE runs SET status = ?, record = ?, updated_at = ?, idempotency_key = NULL WHERE id = ?'
      : 'UPDATE runs SET status = ?, record = ?, updated_at = ? WHERE id = ?'
    this.#sql.get(update).run(record.status, toJsonText(record), record.updatedAt, id)
    // Parsed from the row above and patched with the caller's values: the store keeps no objects, so nothing is shared.
    return record
  }

  async listEvents(runId: string, options: { after?: number; limit?: number } = {}): Promise<AgentEvent[]> {
    rejectNaNListBounds('store-sqlite', 'listEvents', options)
    return withSqliteErrors(`list events of run "${runId}"`, () => {
      // Rows hold contiguous, non-overlapping seq ranges (see #appendEvents): in last_seq order, their events are
      // in seq order, and `limit` rows hold at least `limit` events.
      const after = options.after ?? -Number.MAX_SAFE_INTEGER
      const limit = sqlLimit(options.limit)
      const rows = this.#sql
        .get('SELECT events FROM run_events WHERE run_id = ? AND last_seq > ? ORDER BY last_seq ASC LIMIT ?')
        .pluck()
        .all(runId, after, limit) as string[]
      const events: AgentEvent[] = []
      for (const text of rows) {
        for (const event of fromJsonText<AgentEvent[]>(text)) {
          if (event.seq <= after) continue
          if (limit >= 0 && events.length >= limit) return events
          events.push(event)
        }
      }
      return events
    })
  }

  #findIdByKey(sessionId: string, key: string): string | undefined {
    const row = this.#sql.get('SELECT id FROM runs WHERE session_id = ? AND idempotency_key = ?').get(sessionId, key) as { id: string } | undefined
    return row?.id
  }
}
