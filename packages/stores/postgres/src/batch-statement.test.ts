// A batch as one statement on the real server: its guard refuses the whole statement (nothing applied) and the
// transaction path then throws the write's own typed error; journal starts of every kind in one statement; named
// statements parsed once per connection.
import {
  type AgentEvent,
  type NewExecution,
  NotFoundError,
  type SessionEntryInput,
  SequenceConflictError,
  StaleFenceError,
  type StoreWrite,
} from '@spindle/core'
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { createPostgresStores, type PostgresStores } from './postgres-stores.js'
import { poolDatabase, type SqlDatabase } from './sql-database.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface Counted {
  stores: PostgresStores
  /** Each statement's first word, and whether it ran in a transaction. */
  statements: string[]
  /** Parse messages of named statements sent to the server. */
  parsedNames: string[]
}

/** Stores on a one-connection pool in a fresh schema, seeded as in postgres-store-batch.test.ts, with their statements recorded. */
async function seededStores(options: { preparedStatements?: boolean } = {}): Promise<Counted> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 })
  const schema = randomSchemaName()
  cleanups.push(async () => {
    await pool.end()
    await dropSchema(schema)
  })
  const parsedNames: string[] = []
  pool.on('connect', (client) => {
    const connection = (client as unknown as { connection: { parse(message: { name?: string }): void } }).connection
    const parse = connection.parse.bind(connection)
    connection.parse = (message) => (message.name && parsedNames.push(message.name), parse(message))
  })
  const inner = poolDatabase(pool)
  const statements: string[] = []
  const database: SqlDatabase = {
    query: (text, values, queryOptions) => (statements.push(text.trim().split(/\s+/)[0]!), inner.query(text, values, queryOptions)),
    transaction: (callback, transactionOptions) =>
      inner.transaction((transaction) => {
        statements.push('BEGIN')
        return callback({ query: (text, values) => (statements.push(`in: ${text.trim().split(/\s+/)[0]}`), transaction.query(text, values)) })
      }, transactionOptions),
  }
  const stores = createPostgresStores(database, { schema, pool, ownsPool: false, ...options })
  await stores.migrate()
  await stores.sessions.createSession({ id: 's' })
  await stores.sessions.append('s', [user('question')], { fence: 5 })
  await stores.runs.createRun({ id: 'r', sessionId: 's', request: { input: 'question' } })
  await stores.executions.start(call('done'))
  await stores.executions.finish('r:1:done', { status: 'succeeded', result: { ok: true } })
  await stores.executions.start(call('open'))
  statements.length = 0
  parsedNames.length = 0
  return { stores, statements, parsedNames }
}

function user(text: string): SessionEntryInput {
  return { kind: 'message', message: { role: 'user', content: text }, runId: 'r' }
}

function call(callId: string): NewExecution {
  return { key: `r:1:${callId}`, runId: 'r', step: 1, callId, toolName: 'search', args: { q: callId } }
}

function event(seq: number): AgentEvent {
  return { type: 'text.delta', runId: 'r', sessionId: 's', seq, timestamp: 1_700_000_000_000 + seq, step: 1, delta: `delta ${seq}` }
}

async function state(stores: PostgresStores) {
  return {
    session: await stores.sessions.getSession('s'),
    entries: await stores.sessions.listEntries('s'),
    journal: await stores.executions.listByRun('r'),
    events: await stores.runs.listEvents('r'),
    snapshots: await stores.snapshots.list('r'),
    run: await stores.runs.getRun('r'),
  }
}

const toolHalf = (): StoreWrite[] => [
  { type: 'execution.finish', key: 'r:1:open', outcome: { status: 'succeeded', result: { rows: [1] } } },
  { type: 'session.append', sessionId: 's', entries: [user('result')], fence: 5 },
  { type: 'run.events', runId: 'r', events: [event(1), event(2)] },
  { type: 'snapshot.save', snapshot: { runId: 'r', sessionId: 's', version: 1, state: { step: 1 }, createdAt: 1_700_000_000_000 } },
]

describePostgres('a batch as one statement', () => {
  it.each([
    {
      name: 'a stale fence',
      change: (writes: StoreWrite[]) => ((writes[1] as Extract<StoreWrite, { type: 'session.append' }>).fence = 4),
      error: StaleFenceError,
      message: /carries fence 4, older than 5/,
    },
    {
      name: 'another lastSeq',
      change: (writes: StoreWrite[]) => ((writes[1] as Extract<StoreWrite, { type: 'session.append' }>).expectedLastSeq = 7),
      error: SequenceConflictError,
      message: /expected lastSeq 7, found 1/,
    },
    {
      name: 'a missing session',
      change: (writes: StoreWrite[]) => ((writes[1] as Extract<StoreWrite, { type: 'session.append' }>).sessionId = 'nope'),
      error: NotFoundError,
      message: /session "nope" does not exist/,
    },
    {
      name: 'a journal key never started',
      change: (writes: StoreWrite[]) => writes.unshift({ type: 'execution.finish', key: 'r:1:late', outcome: { status: 'succeeded', result: 1 } }),
      error: NotFoundError,
      message: /execution "r:1:late" was never started/,
    },
    {
      name: 'a missing run',
      change: (writes: StoreWrite[]) => writes.push({ type: 'run.update', runId: 'gone', patch: { step: 1 } }),
      error: NotFoundError,
      message: /run "gone" does not exist/,
    },
  ])('$name: the statement is refused whole, and the transaction path throws the write’s own error', async ({ change, error, message }) => {
    const { stores, statements } = await seededStores()
    const before = await state(stores)
    statements.length = 0
    const writes = toolHalf()
    change(writes)
    const caught = await stores.sessions.batch!.write(writes).catch((caught: unknown) => caught)
    expect(caught).toBeInstanceOf(error)
    expect((caught as Error).message).toMatch(message)
    expect(await state(stores)).toEqual(before)
    expect(statements.slice(0, 2)).toEqual(['WITH', 'BEGIN'])
  })

  it('the tool half of a step: one statement, the caller’s own objects back, the state the single methods leave', async () => {
    const { stores, statements } = await seededStores()
    const writes = toolHalf()
    const results = await stores.sessions.batch!.write(writes)
    expect(statements).toEqual(['WITH'])
    const [finished, appended] = results as unknown as [
      { status: string; result: unknown; attempt: number; args: unknown },
      Array<{ seq: number; message: unknown }>,
    ]
    expect(finished).toMatchObject({ key: 'r:1:open', status: 'succeeded', result: { rows: [1] }, attempt: 1, args: { q: 'open' } })
    expect(appended.map((entry) => entry.seq)).toEqual([2])
    // Not read back: the message the caller wrote (as the SQLite store returns it).
    const [written] = (writes[1] as Extract<StoreWrite, { type: 'session.append' }>).entries
    expect(appended[0]!.message).toBe(written!.kind === 'message' ? written!.message : undefined)
    const after = await state(stores)
    expect(after.session?.lastSeq).toBe(2)
    expect(after.entries.at(-1)).toEqual({ ...appended[0], createdAt: after.entries.at(-1)!.createdAt })
    expect(after.journal.find((record) => record.key === 'r:1:open')).toEqual(finished)
    expect(after.events.map((item) => item.seq)).toEqual([1, 2])
    expect(after.snapshots.map((snapshot) => snapshot.version)).toEqual([1])
  })

  it('journal starts of every kind in one statement: created, re-started (attempt + 1), terminal (left alone, read after)', async () => {
    const { stores, statements } = await seededStores()
    const results = await stores.sessions.batch!.write([
      { type: 'execution.start', execution: call('done') },
      { type: 'execution.start', execution: call('open') },
      { type: 'execution.start', execution: call('new') },
      { type: 'session.append', sessionId: 's', entries: [{ kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'a\u0000b' }] } }] },
    ])
    // The terminal record is read once the statement has committed.
    expect(statements).toEqual(['WITH', 'SELECT'])
    const started = results.slice(0, 3) as Array<{ created: boolean; record: { status: string; attempt: number; result?: unknown } }>
    expect(started.map(({ created, record }) => [created, record.status, record.attempt, record.result])).toEqual([
      [false, 'succeeded', 1, { ok: true }],
      [false, 'started', 2, undefined],
      [true, 'started', 1, undefined],
    ])
    const journal = await stores.executions.listByRun('r')
    expect(journal.map((record) => record.callId)).toEqual(['done', 'open', 'new'])
    expect(journal[2]).toEqual(started[2]!.record)
    expect((await stores.sessions.listEntries('s', { after: 1 }))[0]).toMatchObject({ seq: 2, message: { content: [{ text: 'a\u0000b' }] } })
  })

  it('a finish of a record already finished: the statement is refused, the transaction path returns the record as finish does', async () => {
    const { stores, statements } = await seededStores()
    const writes = toolHalf()
    writes[0] = { type: 'execution.finish', key: 'r:1:done', outcome: { status: 'failed', error: { code: 'late', message: 'ignored' } } }
    const [record] = (await stores.sessions.batch!.write(writes)) as Array<{ status: string; result: unknown; error?: unknown }>
    expect(record).toMatchObject({ status: 'succeeded', result: { ok: true } })
    expect(record!.error).toBeUndefined()
    expect(statements.slice(0, 2)).toEqual(['WITH', 'BEGIN'])
    expect((await stores.sessions.listEntries('s')).map((entry) => entry.seq)).toEqual([1, 2])
  })

  it('prepares each shape once per connection under a name; preparedStatements: false sends none', async () => {
    const prepared = await seededStores()
    for (let version = 1; version <= 3; version++) {
      const writes = toolHalf()
      ;(writes[3] as Extract<StoreWrite, { type: 'snapshot.save' }>).snapshot.version = version
      ;(writes[2] as Extract<StoreWrite, { type: 'run.events' }>).events = [event(version)]
      if (version > 1) writes.shift()
      await prepared.stores.sessions.batch!.write(writes)
    }
    // Two shapes (with and without the journal finish), each parsed once on the pool's one connection.
    expect(prepared.parsedNames).toHaveLength(2)
    expect(new Set(prepared.parsedNames).size).toBe(2)
    const unnamed = await seededStores({ preparedStatements: false })
    await unnamed.stores.sessions.batch!.write(toolHalf())
    expect(unnamed.statements).toEqual(['WITH'])
    expect(unnamed.parsedNames).toEqual([])
  })
})
