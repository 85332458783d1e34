// The query plans of the statements the stores really run on a durable step and its reads: every one a search
// on a key or an index (no table scan, no sort), and the writes' b-trees as few as the schema allows.
import BetterSqlite3 from 'better-sqlite3'
import type { AgentEvent } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { sqliteStores } from './index.js'
import { tempDatabasePath } from './__fixtures__/temp-database.js'

/** Stores on a connection that records the SQL of every statement the stores prepare. */
function recordingStores() {
  const database = new BetterSqlite3(tempDatabasePath())
  const prepared: string[] = []
  const prepare = database.prepare.bind(database)
  database.prepare = ((sql: string) => {
    prepared.push(sql.replace(/\s+/g, ' ').trim())
    return prepare(sql)
  }) as typeof database.prepare
  const stores = sqliteStores({ database, configure: true })
  prepared.length = 0 // the migration's and the stores' set-up statements
  const plan = (sql: string): string => {
    const parameters = Array.from({ length: sql.split('?').length - 1 }, () => null)
    const rows = prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{ detail: string }>
    return rows.map((row) => row.detail).join('; ')
  }
  /** The plan of the one prepared statement whose SQL matches. */
  const planOf = (pattern: RegExp): string => {
    const matching = [...new Set(prepared.filter((sql) => pattern.test(sql)))]
    expect(matching, `statements matching ${pattern}`).toHaveLength(1)
    return plan(matching[0]!)
  }
  return { stores, database, prepared, plan, planOf, close: () => (stores.close(), database.close()) }
}

const event = (seq: number): AgentEvent => ({ type: 'text.delta', step: 1, delta: `d${seq}`, runId: 'r', sessionId: 's', seq, timestamp: seq })

describe('query plans', () => {
  it('a step and the reads of a resume use a key or an index, never a scan or a sort', async () => {
    const { stores, prepared, plan, planOf, close } = recordingStores()
    try {
      await stores.sessions.createSession({ id: 's', resourceId: 'user' })
      await stores.runs.createRun({ id: 'r', sessionId: 's', request: {}, idempotencyKey: 'k' })
      const start = { key: 'r:1:c', runId: 'r', step: 1, callId: 'c', toolName: 'add', args: {} }
      await stores.sessions.batch!.write([
        { type: 'session.append', sessionId: 's', entries: [{ kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'x' }] } }] },
        { type: 'execution.start', execution: start },
      ])
      await stores.sessions.batch!.write([
        { type: 'execution.finish', key: 'r:1:c', outcome: { status: 'succeeded', result: 2 } },
        { type: 'session.append', sessionId: 's', entries: [{ kind: 'compaction', compaction: { throughSeq: 1, strategy: 'truncate' } }] },
        { type: 'run.events', runId: 'r', events: [event(1), event(2)] },
        { type: 'snapshot.save', snapshot: { runId: 'r', sessionId: 's', version: 1, state: {}, createdAt: 1 } },
        { type: 'run.update', runId: 'r', patch: { step: 1 } },
      ])
      await stores.sessions.listEntries('s', { after: 0, before: 9 })
      await stores.sessions.listEntries('s', { order: 'desc', limit: 1 })
      await stores.sessions.listEntries('s', { kind: 'compaction', order: 'desc', limit: 1 })
      await stores.sessions.listEntries('s', { kind: 'message' })
      await stores.snapshots.latest('r')
      await stores.snapshots.get('r', 1)
      await stores.runs.listEvents('r', { after: 1 })
      await stores.executions.get('r:1:c')
      await stores.executions.listByRun('r')
      await stores.runs.findRunByIdempotencyKey('s', 'k')
      await stores.runs.getRun('r')
      await stores.sessions.getSession('s')

      // Every statement of the above: no full scan, no temporary b-tree for an ORDER BY.
      const statements = [...new Set(prepared)].filter((sql) => /^(SELECT|INSERT|UPDATE|DELETE)/.test(sql))
      expect(statements.length).toBeGreaterThan(15)
      for (const sql of statements) expect(plan(sql), sql).not.toMatch(/\bSCAN (?!CONSTANT ROW)|TEMP B-TREE/)

      // The hot ones, by name: the key or the index each one must use.
      expect(planOf(/^SELECT '\[' \|\| seq .* FROM session_entries WHERE session_id = \? .* ORDER BY seq ASC/)).toMatch(
        /^SEARCH session_entries USING INDEX sqlite_autoindex_session_entries_1 \(session_id=\? AND seq>\? AND seq<\?\)$/,
      )
      expect(planOf(/INDEXED BY session_entries_compactions .* ORDER BY seq DESC/)).toMatch(
        /^SEARCH session_entries USING INDEX session_entries_compactions \(session_id=\? AND seq>\? AND seq<\?\)$/,
      )
      expect(planOf(/FROM session_entries WHERE kind = \?/)).toMatch(
        /^SEARCH session_entries USING INDEX sqlite_autoindex_session_entries_1 \(session_id=\? AND seq>\? AND seq<\?\)$/,
      )
      expect(planOf(/FROM snapshots WHERE run_id = \? ORDER BY version DESC LIMIT 1/)).toMatch(
        /^SEARCH snapshots USING INDEX sqlite_autoindex_snapshots_1 \(run_id=\?\)$/,
      )
      expect(planOf(/FROM run_events WHERE run_id = \? AND last_seq > \?/)).toMatch(
        /^SEARCH run_events USING INDEX sqlite_autoindex_run_events_1 \(run_id=\? AND last_seq>\?\)$/,
      )
      // The usual events append is one statement: the row is inserted unless a stored one reaches its first seq.
      expect(planOf(/^INSERT INTO run_events .* WHERE NOT EXISTS/)).toBe(
        'SCAN CONSTANT ROW; SCALAR SUBQUERY 1; SEARCH run_events USING COVERING INDEX sqlite_autoindex_run_events_1 (run_id=? AND last_seq>?)',
      )
      expect(planOf(/^SELECT record FROM executions WHERE key = \?/)).toMatch(/^SEARCH executions USING INDEX sqlite_autoindex_executions_1 \(key=\?\)$/)
      expect(planOf(/^UPDATE executions .* WHERE key = \?/)).toMatch(/^SEARCH executions USING INDEX sqlite_autoindex_executions_1 \(key=\?\)$/)
      expect(planOf(/FROM executions WHERE run_id = \? ORDER BY position/)).toMatch(/^SEARCH executions USING INDEX executions_by_run \(run_id=\?\)$/)
      expect(planOf(/^SELECT record FROM runs WHERE session_id = \? AND idempotency_key = \?/)).toMatch(
        /^SEARCH runs USING INDEX runs_by_idempotency_key \(session_id=\? AND idempotency_key=\?\)$/,
      )
      // An append reads the session row and its log's last entry in one statement: the row by its key, the entry
      // by a search from the end of the session's key range.
      expect(planOf(/^SELECT s.fence, s.updated_at, e.seq AS last_seq/)).toBe(
        'SEARCH s USING INDEX sqlite_autoindex_sessions_1 (id=?); SEARCH e USING INDEX sqlite_autoindex_session_entries_1 (session_id=? AND seq=?) LEFT-JOIN; CORRELATED SCALAR SUBQUERY 1; SEARCH session_entries USING COVERING INDEX sqlite_autoindex_session_entries_1 (session_id=?)',
      )
    } finally {
      close()
    }
  })

  it('listSessions, a rare call, sorts: by resource through its index, else over the table; each log is searched, never scanned', async () => {
    const { stores, planOf, close } = recordingStores()
    try {
      await stores.sessions.listSessions({ resourceId: 'user', limit: 5 })
      await stores.sessions.listSessions({ limit: 5 })
      // A session's updatedAt comes from its last entry: the log's key finds it (max seq, then that row).
      const lastEntry =
        'SEARCH e USING INDEX sqlite_autoindex_session_entries_1 (session_id=? AND seq=?) LEFT-JOIN; CORRELATED SCALAR SUBQUERY 1; SEARCH session_entries USING COVERING INDEX sqlite_autoindex_session_entries_1 (session_id=?)'
      expect(planOf(/WHERE s.resource_id = \?/)).toBe(`SEARCH s USING INDEX sessions_by_resource (resource_id=?); ${lastEntry}; USE TEMP B-TREE FOR ORDER BY`)
      expect(planOf(/\(SELECT max\(seq\) FROM session_entries WHERE session_id = s.id\)\) WHERE max\(updated_at/)).toBe(
        `SCAN s USING INDEX sqlite_autoindex_sessions_1; ${lastEntry}; USE TEMP B-TREE FOR ORDER BY`,
      )
    } finally {
      close()
    }
  })

  it('no index is keyed on a column a step rewrites, and the kind index holds compactions only', async () => {
    const { stores, database, close } = recordingStores()
    try {
      const indexColumns = database
        .prepare(
          "SELECT m.name AS tbl, i.name AS idx, c.name AS col FROM sqlite_master m, pragma_index_list(m.name) i, pragma_index_info(i.name) c WHERE m.type = 'table'",
        )
        .all() as Array<{ tbl: string; idx: string; col: string }>
      // Written by every append (sessions), every finish (executions), every snapshot replace.
      const rewritten: Record<string, string[]> = {
        sessions: ['updated_at', 'last_seq', 'fence', 'data'],
        executions: ['status', 'record'],
        snapshots: ['state'],
      }
      for (const { tbl, idx, col } of indexColumns) expect(rewritten[tbl] ?? [], `${idx} on ${tbl}(${col})`).not.toContain(col)
      const withoutRowid = (name: string) => (database.prepare('SELECT wr FROM pragma_table_list WHERE name = ?').pluck().get(name) as number) === 1
      // Every step table appends its rows at its end (rowid tables; see migrations.ts for the measurements).
      expect(['session_entries', 'executions', 'snapshots', 'run_events', 'sessions'].filter(withoutRowid)).toEqual([])

      await stores.sessions.createSession({ id: 's' })
      const message = { kind: 'message' as const, message: { role: 'user' as const, content: 'hi' } }
      await stores.sessions.append('s', [message, message, message])
      await stores.sessions.append('s', [{ kind: 'compaction', compaction: { throughSeq: 3, strategy: 'truncate' } }, message])
      const cells = database.prepare("SELECT sum(ncell) FROM dbstat WHERE name = 'session_entries_compactions' AND pagetype = 'leaf'").pluck().get()
      expect(cells).toBe(1)
    } finally {
      close()
    }
  })
})
