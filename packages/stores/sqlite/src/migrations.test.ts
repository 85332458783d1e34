import BetterSqlite3 from 'better-sqlite3'
import { StaleFenceError, StoreError } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { migrations, readSchemaVersion, sqliteSchemaVersion } from './migrations.js'
import { sqliteStores } from './index.js'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

describe('migrations', () => {
  it('creates every table on a fresh file and records the schema version', () => {
    const path = tempDatabasePath()
    const stores = openStores({ path })
    expect(readSchemaVersion(stores.database)).toBe(sqliteSchemaVersion)
    expect(sqliteSchemaVersion).toBe(migrations.at(-1)!.version)
    const tables = stores.database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()
    expect(tables).toEqual(
      expect.arrayContaining(['sessions', 'session_entries', 'runs', 'run_events', 'executions', 'snapshots', 'embeddings', 'artifacts', 'artifact_chunks']),
    )
  })

  it('reopens an existing file without re-running migrations and keeps its data', async () => {
    const path = tempDatabasePath()
    const first = sqliteStores({ path })
    await first.sessions.createSession({ id: 'kept', title: 'still here' })
    first.close()
    const second = openStores({ path })
    expect(readSchemaVersion(second.database)).toBe(sqliteSchemaVersion)
    expect((await second.sessions.getSession('kept'))?.title).toBe('still here')
  })

  it('refuses a database whose schema is newer than this code, telling the user to upgrade', () => {
    const path = tempDatabasePath()
    sqliteStores({ path }).close()
    const raw = new BetterSqlite3(path)
    raw.pragma(`user_version = ${sqliteSchemaVersion + 1}`)
    raw.close()
    let error: unknown
    try {
      sqliteStores({ path })
    } catch (caught) {
      error = caught
    }
    expect(StoreError.isInstance(error)).toBe(true)
    expect((error as StoreError).code).toBe('store')
    expect((error as Error).message).toMatch(/\[spindle\/store-sqlite\].*newer.*upgrade @spindle\/store-sqlite/)
    // The file was left untouched.
    const check = new BetterSqlite3(path, { readonly: true })
    expect(readSchemaVersion(check)).toBe(sqliteSchemaVersion + 1)
    check.close()
  })

  it("refuses another application's database (its own user_version, or a table named like Spindle's) and leaves it untouched", () => {
    // Applications set PRAGMA user_version for their own schemas: such a file used to be "migrated" from the
    // middle (no such table: sessions), opened as current and failing on first use, or called newer ("upgrade").
    const foreign = (setup: (raw: BetterSqlite3.Database) => void): string => {
      const path = tempDatabasePath()
      const raw = new BetterSqlite3(path)
      setup(raw)
      raw.close()
      return path
    }
    const cases = [
      { version: 2, path: foreign((raw) => raw.exec('CREATE TABLE users (id INTEGER PRIMARY KEY); PRAGMA user_version = 2')) },
      { version: sqliteSchemaVersion, path: foreign((raw) => raw.pragma(`user_version = ${sqliteSchemaVersion}`)) },
      { version: 42, path: foreign((raw) => raw.exec('CREATE TABLE users (id INTEGER PRIMARY KEY); PRAGMA user_version = 42')) },
      { version: 0, path: foreign((raw) => raw.exec('CREATE TABLE sessions (sid TEXT PRIMARY KEY, payload BLOB)')) },
    ]
    for (const { version, path } of cases) {
      let error: unknown
      try {
        sqliteStores({ path }).close()
      } catch (caught) {
        error = caught
      }
      expect(StoreError.isInstance(error), `user_version ${version}`).toBe(true)
      expect((error as Error).message, `user_version ${version}`).toMatch(
        /\[spindle\/store-sqlite\] The database .* is not a Spindle database: .*a file of its own/,
      )
      expect((error as Error).message).not.toMatch(/upgrade/)
      const check = new BetterSqlite3(path, { readonly: true })
      expect(readSchemaVersion(check)).toBe(version)
      expect(check.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'session_entries'").pluck().get()).toBe(0)
      check.close()
    }
    // A file of another application that only adds tables of its own names still takes Spindle's beside them.
    const shared = foreign((raw) => raw.exec('CREATE TABLE users (id INTEGER PRIMARY KEY)'))
    const stores = openStores({ path: shared })
    expect(readSchemaVersion(stores.database)).toBe(sqliteSchemaVersion)
  })

  it('runs the migration once when two connections open a fresh file', async () => {
    const path = tempDatabasePath()
    const a = openStores({ path })
    const b = openStores({ path })
    await a.sessions.createSession({ id: 's' })
    expect(await b.sessions.getSession('s')).toBeDefined()
    expect(readSchemaVersion(b.database)).toBe(sqliteSchemaVersion)
  })

  it('read-only: reads work, writes fail with a StoreError, and an unmigrated file is refused', async () => {
    const path = tempDatabasePath()
    const writer = sqliteStores({ path })
    await writer.sessions.createSession({ id: 'r', title: 'read me' })
    writer.close()
    const reader = openStores({ path, readonly: true })
    expect((await reader.sessions.getSession('r'))?.title).toBe('read me')
    await expect(reader.sessions.createSession({ id: 'x' })).rejects.toThrow(/read-only/)

    const emptyPath = tempDatabasePath()
    new BetterSqlite3(emptyPath).close()
    expect(() => sqliteStores({ path: emptyPath, readonly: true })).toThrow(/open it once without `readonly: true`/)
  })
})

/** A file at schema version 1 holding the rows the version-1 stores wrote (their exact SQL and JSON shapes). */
function version1Database(path: string): BetterSqlite3.Database {
  const raw = new BetterSqlite3(path)
  raw.pragma('journal_mode = WAL')
  raw.transaction(() => {
    migrations.find((migration) => migration.version === 1)!.up(raw)
    raw.pragma('user_version = 1')
  })()
  const insert = (sql: string, ...rows: unknown[][]) => {
    const statement = raw.prepare(sql)
    for (const row of rows) statement.run(...row)
  }
  insert(
    'INSERT INTO sessions (id, resource_id, data, last_seq, fence, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ['s1', 'user-1', JSON.stringify({ title: 'first \u0000 \uD800', metadata: { tag: 'a' } }), 3, 7, 1000, 3000],
    ['s2', null, JSON.stringify({ metadata: {} }), 1, null, 1500, 2000],
    ['s3', 'user-1', JSON.stringify({ metadata: {} }), 0, null, 1200, 1200],
  )
  insert(
    'INSERT INTO session_entries (session_id, seq, kind, run_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ['s1', 1, 'message', 'r1', JSON.stringify({ role: 'user', content: 'hello' }), 1000],
    ['s1', 2, 'compaction', 'r1', JSON.stringify({ throughSeq: 1, strategy: 'truncate', summary: 'said hello' }), 2000],
    ['s1', 3, 'message', null, JSON.stringify({ role: 'assistant', content: [{ type: 'text', text: 'hi \uDC00' }] }), 3000],
    ['s2', 1, 'message', null, JSON.stringify({ role: 'user', content: 'other' }), 2000],
  )
  const run = (id: string, sessionId: string, idempotencyKey: string | null, status: string, createdAt: number) => [
    id,
    sessionId,
    status,
    idempotencyKey,
    JSON.stringify({
      id,
      sessionId,
      status,
      step: 2,
      usage: { inputTokens: 1, outputTokens: 2 },
      ...(idempotencyKey && { idempotencyKey }),
      request: { input: 'go' },
      metadata: {},
      createdAt,
      updatedAt: createdAt,
    }),
    createdAt,
    createdAt,
  ]
  insert(
    'INSERT INTO runs (id, session_id, status, idempotency_key, record, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    run('r1', 's1', 'k1', 'completed', 1000),
    run('r2', 's2', null, 'running', 1500),
  )
  const event = (runId: string, seq: number) => [
    runId,
    seq,
    JSON.stringify({ type: 'text.delta', step: 1, delta: `d${seq}`, runId, sessionId: 's1', seq, timestamp: seq }),
  ]
  insert('INSERT INTO run_events (run_id, seq, event) VALUES (?, ?, ?)', event('r1', 1), event('r1', 2), event('r1', 3), event('r2', 1))
  const execution = (key: string, runId: string, status: string, extra: object) => [
    key,
    runId,
    status,
    JSON.stringify({ key, runId, step: 1, callId: key.split(':')[2], toolName: 'add', args: { a: 1 }, status, attempt: 1, startedAt: 1000, ...extra }),
  ]
  // Interleaved across runs: position is the global insertion order.
  insert(
    'INSERT INTO executions (key, run_id, status, record) VALUES (?, ?, ?, ?)',
    execution('r1:1:a', 'r1', 'succeeded', { result: 2, finishedAt: 1100 }),
    execution('r2:1:x', 'r2', 'started', {}),
    execution('r1:2:b', 'r1', 'started', {}),
  )
  insert(
    'INSERT INTO snapshots (run_id, version, session_id, state, created_at) VALUES (?, ?, ?, ?, ?)',
    ['r1', 1, 's1', JSON.stringify({ step: 1 }), 1000],
    ['r1', 2, 's1', JSON.stringify({ step: 2, seqs: [1, 3] }), 2000],
  )
  return raw
}

const tableDumps: Record<string, string> = {
  sessions: 'SELECT * FROM sessions ORDER BY id',
  session_entries: 'SELECT * FROM session_entries ORDER BY session_id, seq',
  runs: 'SELECT * FROM runs ORDER BY id',
  // Ordered by the second column: seq (version 1), last_seq (version 3).
  run_events: 'SELECT * FROM run_events ORDER BY run_id, 2',
  executions: 'SELECT * FROM executions ORDER BY position',
  snapshots: 'SELECT * FROM snapshots ORDER BY run_id, version',
}

function dump(database: BetterSqlite3.Database): Record<string, unknown[]> {
  return Object.fromEntries(Object.entries(tableDumps).map(([table, sql]) => [table, database.prepare(sql).all()]))
}

/** What migrations 2 and 3 make of a version-1 dump: a session's lastSeq is read from its log, an event is a one-event row. */
function migrated(version1: Record<string, unknown[]>): Record<string, unknown[]> {
  return {
    ...version1,
    sessions: (version1.sessions as Array<Record<string, unknown>>).map(({ last_seq: _lastSeq, ...row }) => row),
    run_events: (version1.run_events as Array<{ run_id: string; seq: number; event: string }>).map((row) => ({
      run_id: row.run_id,
      last_seq: row.seq,
      first_seq: row.seq,
      events: `[${row.event}]`,
    })),
  }
}

function schemaObjects(database: BetterSqlite3.Database): string[] {
  return database.prepare("SELECT type || ' ' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[]
}

describe('migrations 1 → 3 (fewer pages per step)', () => {
  it('upgrades a version-1 file in place: every row kept, the new layout in place, the stores carry on', async () => {
    const path = tempDatabasePath()
    const raw = version1Database(path)
    // An entry whose session is gone (possible on a connection without foreign_keys): copied as it is.
    raw.pragma('foreign_keys = OFF')
    raw.prepare("INSERT INTO session_entries (session_id, seq, kind, run_id, body, created_at) VALUES ('gone', 1, 'message', NULL, '{}', 5)").run()
    const before = dump(raw)
    raw.close()

    const stores = openStores({ path })
    const { database } = stores
    expect(readSchemaVersion(database)).toBe(sqliteSchemaVersion)
    expect(dump(database)).toEqual(migrated(before))
    expect(database.pragma('foreign_keys', { simple: true })).toBe(1)
    const objects = schemaObjects(database)
    expect(objects).toEqual(expect.arrayContaining(['index sessions_by_resource', 'index session_entries_compactions', 'index executions_by_run']))
    for (const gone of [
      'index sessions_by_update',
      'index session_entries_by_kind',
      'table session_entries_v2',
      'table run_events_v2',
      'table run_events_v3',
    ]) {
      expect(objects).not.toContain(gone)
    }
    const withoutRowid = database.prepare("SELECT name FROM pragma_table_list WHERE wr = 1 AND schema = 'main' ORDER BY name").pluck().all()
    expect(withoutRowid).toEqual([])

    // Sessions and their log, read through the stores.
    const s1 = await stores.sessions.getSession('s1')
    expect(s1).toEqual({ id: 's1', resourceId: 'user-1', title: 'first \u0000 \uD800', metadata: { tag: 'a' }, lastSeq: 3, createdAt: 1000, updatedAt: 3000 })
    expect((await stores.sessions.listSessions()).map((session) => session.id)).toEqual(['s1', 's2', 's3'])
    expect((await stores.sessions.listSessions({ resourceId: 'user-1' })).map((session) => session.id)).toEqual(['s1', 's3'])
    expect((await stores.sessions.listSessions({ before: 3000, limit: 1 })).map((session) => session.id)).toEqual(['s2'])
    const log = await stores.sessions.listEntries('s1')
    expect(log.map((entry) => [entry.seq, entry.kind, entry.runId])).toEqual([
      [1, 'message', 'r1'],
      [2, 'compaction', 'r1'],
      [3, 'message', undefined],
    ])
    expect(log[2]).toEqual({
      kind: 'message',
      message: { role: 'assistant', content: [{ type: 'text', text: 'hi \uDC00' }] },
      sessionId: 's1',
      seq: 3,
      createdAt: 3000,
    })
    const [latestCompaction] = await stores.sessions.listEntries('s1', { kind: 'compaction', order: 'desc', limit: 1 })
    expect(latestCompaction).toMatchObject({ seq: 2, compaction: { summary: 'said hello' } })
    // The fence survived: a stale writer is still refused, the current one appends after the migrated log.
    await expect(stores.sessions.append('s1', [{ kind: 'message', message: { role: 'user', content: 'late' } }], { fence: 6 })).rejects.toBeInstanceOf(
      StaleFenceError,
    )
    const [appended] = await stores.sessions.append('s1', [{ kind: 'compaction', compaction: { throughSeq: 3, strategy: 'truncate' } }], { fence: 7 })
    expect(appended?.seq).toBe(4)
    expect((await stores.sessions.listEntries('s1', { kind: 'compaction', order: 'desc', limit: 1 }))[0]?.seq).toBe(4)

    // Runs, events, the journal and snapshots.
    expect((await stores.runs.findRunByIdempotencyKey('s1', 'k1'))?.id).toBe('r1')
    await stores.runs.appendEvents('r1', [
      { type: 'text.delta', step: 1, delta: 'replayed', runId: 'r1', sessionId: 's1', seq: 3, timestamp: 3 },
      { type: 'text.delta', step: 2, delta: 'd4', runId: 'r1', sessionId: 's1', seq: 4, timestamp: 4 },
    ])
    const events = await stores.runs.listEvents('r1', { after: 1 })
    expect(events.map((event) => [event.seq, event.type === 'text.delta' && event.delta])).toEqual([
      [2, 'd2'],
      [3, 'd3'],
      [4, 'd4'],
    ])
    await stores.executions.start({ key: 'r1:3:c', runId: 'r1', step: 3, callId: 'c', toolName: 'add', args: {} })
    await stores.executions.finish('r1:2:b', { status: 'succeeded', result: 5 })
    expect((await stores.executions.listByRun('r1')).map((record) => [record.callId, record.status])).toEqual([
      ['a', 'succeeded'],
      ['b', 'succeeded'],
      ['c', 'started'],
    ])
    expect((await stores.executions.get('r1:1:a'))?.result).toBe(2)
    expect((await stores.snapshots.latest('r1'))?.state).toEqual({ step: 2, seqs: [1, 3] })

    // Foreign keys hold on the rebuilt log: deleting a session takes its entries, an unknown session is refused.
    await stores.sessions.deleteSession('s2')
    expect(database.prepare("SELECT count(*) FROM session_entries WHERE session_id = 's2'").pluck().get()).toBe(0)
    expect(() =>
      database.prepare("INSERT INTO session_entries (session_id, seq, kind, body, created_at) VALUES ('nobody', 1, 'message', '{}', 0)").run(),
    ).toThrow(/FOREIGN KEY/)
  })

  it('is one transaction: a migration that fails half-way leaves the version-1 file exactly as it was', () => {
    const path = tempDatabasePath()
    const raw = version1Database(path)
    // An object in the way of the rebuild: the migration fails after it has dropped and rebuilt some tables.
    raw.exec('CREATE TABLE run_events_v2 (x)')
    const before = dump(raw)
    const objects = schemaObjects(raw)
    raw.close()

    expect(() => sqliteStores({ path })).toThrow(StoreError)
    const check = new BetterSqlite3(path)
    expect(readSchemaVersion(check)).toBe(1)
    expect(schemaObjects(check)).toEqual(objects)
    expect(dump(check)).toEqual(before)
    check.exec('DROP TABLE run_events_v2')
    check.close()

    const stores = openStores({ path })
    expect(readSchemaVersion(stores.database)).toBe(sqliteSchemaVersion)
    expect(dump(stores.database)).toEqual(migrated(before))
  })
})
