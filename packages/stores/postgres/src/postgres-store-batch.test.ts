// PostgresStoreBatch on the real server: one transaction per batch, all or nothing, the single methods' results,
// one statement per run of journal writes, and pg errors mapped with the failing write's action.
import {
  AgentRuntime,
  type AgentEvent,
  defineTool,
  Extensions,
  jsonSchema,
  mockModel,
  type NewExecution,
  NotFoundError,
  type SessionEntryInput,
  StaleFenceError,
  StoreError,
  type StoreWrite,
} from '@spindle/core'
import { findStoreBatch } from '@spindle/core/plugin-kit'
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { createPostgresStores, postgresStores, type PostgresStores } from './postgres-stores.js'
import { poolDatabase, type SqlDatabase, type SqlExecutor } from './sql-database.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'
import { recordWire } from './test-support/wire-timeline.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Migrated stores in a fresh schema, closed and dropped after the test. */
async function freshStores(): Promise<PostgresStores> {
  const stores = postgresStores({ connectionString: databaseUrl, schema: randomSchemaName() })
  cleanups.push(async () => {
    await stores.close()
    await dropSchema(stores.schema)
  })
  await stores.migrate()
  return stores
}

/** Stores over a database that records each statement, and whether it ran inside `transaction()`. */
async function countedStores(): Promise<{ stores: PostgresStores; statements: Array<{ text: string; inTransaction: boolean }>; transactions: () => number }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 })
  const schema = randomSchemaName()
  cleanups.push(async () => {
    await pool.end()
    await dropSchema(schema)
  })
  const inner = poolDatabase(pool)
  const statements: Array<{ text: string; inTransaction: boolean }> = []
  let transactions = 0
  const database: SqlDatabase = {
    query: (text, values, options) => {
      statements.push({ text, inTransaction: false })
      return inner.query(text, values, options)
    },
    transaction: (callback) => {
      transactions += 1
      return inner.transaction((transaction) =>
        callback({
          query: (text, values) => {
            statements.push({ text, inTransaction: true })
            return transaction.query(text, values)
          },
        } satisfies SqlExecutor),
      )
    },
  }
  const stores = createPostgresStores(database, { schema, pool, ownsPool: false })
  await stores.migrate()
  statements.length = 0
  transactions = 0
  return { stores, statements, transactions: () => transactions }
}

function user(text: string): SessionEntryInput {
  return { kind: 'message', message: { role: 'user', content: text }, runId: 'r' }
}

function call(callId: string): NewExecution {
  return { key: `r:1:${callId}`, runId: 'r', step: 1, callId, toolName: 'search', args: { q: callId } }
}

function event(runId: string, seq: number, delta = `delta ${seq}`): AgentEvent {
  return { type: 'text.delta', runId, sessionId: 's', seq, timestamp: 1_700_000_000_000 + seq, step: 1, delta }
}

/** Session "s" at fence 5 with one entry; run "r" with event 1; journal r:1:done (succeeded) and r:1:open (started). */
async function seed(stores: PostgresStores): Promise<void> {
  await stores.sessions.createSession({ id: 's' })
  await stores.sessions.append('s', [user('question')], { fence: 5 })
  await stores.runs.createRun({ id: 'r', sessionId: 's', request: { input: 'question' } })
  await stores.runs.appendEvents('r', [event('r', 1)])
  await stores.executions.start(call('done'))
  await stores.executions.finish('r:1:done', { status: 'succeeded', result: { ok: true } })
  await stores.executions.start(call('open'))
}

async function everything(stores: PostgresStores) {
  return {
    session: await stores.sessions.getSession('s'),
    entries: await stores.sessions.listEntries('s'),
    journal: await stores.executions.listByRun('r'),
    events: await stores.runs.listEvents('r'),
    otherEvents: await stores.runs.listEvents('r2'),
    snapshots: await stores.snapshots.list('r'),
    run: await stores.runs.getRun('r'),
  }
}

const snapshot = { runId: 'r', sessionId: 's', version: 1, state: { step: 1, signature: 'a\u0000b' }, createdAt: 1_700_000_000_000 }

/** The second commit of a step with two tool calls: journal finishes, tool results, events, snapshot, run update. */
function stepEnd(): StoreWrite[] {
  return [
    { type: 'execution.finish', key: 'r:1:open', outcome: { status: 'succeeded', result: { rows: [1] } } },
    { type: 'execution.finish', key: 'r:1:done', outcome: { status: 'failed', error: { code: 'late', message: 'ignored' } } },
    { type: 'session.append', sessionId: 's', entries: [user('result a'), user('result b')], fence: 6 },
    { type: 'run.events', runId: 'r', events: [event('r', 1, 'replayed'), event('r', 2), event('r', 3)] },
    { type: 'run.events', runId: 'r2', events: [event('r2', 1)] },
    { type: 'snapshot.save', snapshot: structuredClone(snapshot) },
    { type: 'run.update', runId: 'r', patch: { step: 1, status: 'running' } },
  ]
}

const times = new Set(['createdAt', 'updatedAt', 'startedAt', 'finishedAt'])
function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, times.has(key) ? '<time>' : withoutTimes(item)]))
}

describePostgres('PostgresStoreBatch', () => {
  it('is shared by the four stores of postgresStores() and found by the kernel', async () => {
    const stores = await freshStores()
    const batch = stores.sessions.batch
    expect(batch?.specificationVersion).toBe('v1')
    expect([stores.runs.batch, stores.executions.batch, stores.snapshots.batch]).toEqual([batch, batch, batch])
    expect(findStoreBatch(stores)).toBe(batch)
    const other = await freshStores()
    expect(findStoreBatch({ ...stores, executions: other.executions })).toBeUndefined()
  })

  it('a batch whose last write carries a stale fence writes nothing, not even the fence raised earlier in it', async () => {
    const stores = await freshStores()
    await seed(stores)
    const before = await everything(stores)
    const stale: StoreWrite = { type: 'session.append', sessionId: 's', entries: [user('from the old lease')], fence: 5 }
    const error = await stores.sessions.batch!.write([...stepEnd(), stale]).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(StaleFenceError)
    expect((error as StaleFenceError).message).toMatch(/fence 5, older than 6.*re-acquire the session/)
    expect(await everything(stores)).toEqual(before)
    // The fence 6 of the rolled-back append was never recorded: fence 5 still writes.
    expect((await stores.sessions.append('s', [user('still the owner')], { fence: 5 })).map((entry) => entry.seq)).toEqual([2])
  })

  it('returns what the single methods return and leaves the same state', async () => {
    const [single, batched] = [await freshStores(), await freshStores()]
    await seed(single)
    await seed(batched)
    const expected: unknown[] = [
      await single.executions.finish('r:1:open', { status: 'succeeded', result: { rows: [1] } }),
      await single.executions.finish('r:1:done', { status: 'failed', error: { code: 'late', message: 'ignored' } }),
      await single.sessions.append('s', [user('result a'), user('result b')], { fence: 6 }),
      await single.runs.appendEvents('r', [event('r', 1, 'replayed'), event('r', 2), event('r', 3)]),
      await single.runs.appendEvents('r2', [event('r2', 1)]),
      await single.snapshots.save(structuredClone(snapshot)),
      await single.runs.updateRun('r', { step: 1, status: 'running' }),
    ]
    const results = await batched.sessions.batch!.write(stepEnd())
    expect(withoutTimes(results)).toEqual(withoutTimes(expected))
    expect(withoutTimes(await everything(batched))).toEqual(withoutTimes(await everything(single)))
    expect((results[2] as Array<{ seq: number }>).map((entry) => entry.seq)).toEqual([2, 3])
    expect((await batched.runs.listEvents('r')).map((item) => (item as { delta: string }).delta)).toEqual(['delta 1', 'delta 2', 'delta 3'])
    expect((await batched.snapshots.get('r', 1))?.state).toEqual({ step: 1, signature: 'a\u0000b' })
  })

  it('journal starts count attempts on a re-started key, leave a terminal one alone, and keep their order', async () => {
    const stores = await freshStores()
    await seed(stores)
    const results = await stores.sessions.batch!.write([
      { type: 'execution.start', execution: call('new') },
      { type: 'execution.start', execution: call('open') },
      { type: 'execution.start', execution: call('done') },
      { type: 'execution.start', execution: call('new') }, // the same key again in the batch: a second attempt
    ])
    const started = results as Array<{ created: boolean; record: { status: string; attempt: number } }>
    expect(started.map(({ created, record }) => [created, record.status, record.attempt])).toEqual([
      [true, 'started', 1],
      [false, 'started', 2],
      [false, 'succeeded', 1],
      [false, 'started', 2],
    ])
    expect((await stores.executions.listByRun('r')).map((record) => record.callId)).toEqual(['done', 'open', 'new'])
  })

  it('commits a step end as one statement, outside any transaction: the journal finishes, the append, the events, the snapshot, the run update', async () => {
    const { stores, statements, transactions } = await countedStores()
    await seed(stores)
    statements.length = 0
    // Without stepEnd()'s finish of a record already finished (that one sends the batch down the transaction path).
    const results = await stores.sessions.batch!.write(stepEnd().filter((write) => write.type !== 'execution.finish' || write.key !== 'r:1:done'))
    expect((results[1] as Array<{ seq: number }>).map((entry) => entry.seq)).toEqual([2, 3])
    expect(transactions()).toBe(0)
    expect(statements).toHaveLength(1)
    expect(statements[0]!.text).toMatch(/^WITH /)
    statements.length = 0
    await stores.sessions.batch!.write([{ type: 'run.update', runId: 'r', patch: { step: 2 } }])
    expect(transactions(), 'a single write needs no transaction').toBe(0)
    expect(statements).toHaveLength(1)
  })

  it('a batch writing a row twice is one transaction, its statements sent together: BEGIN and one per group before the first reply, COMMIT after the last', async () => {
    const stores = await freshStores()
    await seed(stores)
    const timeline = recordWire(stores.pool, { replies: true })
    // Two appends to session "s": the second must see the first's seqs, which one statement's CTEs cannot.
    const results = await stores.sessions.batch!.write([...stepEnd(), { type: 'session.append', sessionId: 's', entries: [user('result c')] }])
    expect((results[2] as Array<{ seq: number }>).map((entry) => entry.seq)).toEqual([2, 3])
    expect((results[7] as Array<{ seq: number }>).map((entry) => entry.seq)).toEqual([4])
    // finishes · append · events of two runs · snapshot · run update · append: six statements written before any
    // reply; the read of the journal row already finished follows its reply; COMMIT comes last.
    expect(timeline.slice(0, 8)).toEqual(['BEGIN', 'statement', 'statement', 'statement', 'statement', 'statement', 'statement', 'reply'])
    expect(timeline.at(-2)).toBe('COMMIT')
    expect(timeline.filter((item) => item === 'statement')).toHaveLength(7)
  })

  it('a finish of a never-started key fails even when a later start of the batch creates it (such a batch is not pipelined)', async () => {
    const stores = await freshStores()
    await seed(stores)
    const before = await everything(stores)
    const error = await stores.sessions
      .batch!.write([
        { type: 'execution.finish', key: 'r:1:late', outcome: { status: 'succeeded', result: 1 } },
        { type: 'session.append', sessionId: 's', entries: [user('between')] },
        { type: 'execution.start', execution: call('late') },
      ])
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(NotFoundError)
    expect((error as Error).message).toMatch(/execution "r:1:late" was never started/)
    expect(await everything(stores)).toEqual(before)
  })

  it('a single append is one statement, outside any transaction', async () => {
    const { stores, statements, transactions } = await countedStores()
    await stores.sessions.createSession({ id: 's' })
    statements.length = 0
    expect((await stores.sessions.append('s', [user('a'), user('b')], { fence: 1 })).map((entry) => entry.seq)).toEqual([1, 2])
    expect(statements).toHaveLength(1)
    expect(transactions()).toBe(0)
  })

  it('a pg error names the failing write and rolls the batch back', async () => {
    const stores = await freshStores()
    await seed(stores)
    const before = await everything(stores)
    // `step` is an integer column: PostgreSQL refuses 2^31 (22003, integer out of range).
    const error = await stores.sessions
      .batch!.write([
        { type: 'session.append', sessionId: 's', entries: [user('applied first')] },
        { type: 'run.update', runId: 'r', patch: { step: 2 ** 31 } },
      ])
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(StoreError)
    expect((error as StoreError).message).toMatch(/updating run "r" \(in a batch of 2 writes, none applied\) failed: .*out of range/)
    expect(await everything(stores)).toEqual(before)
  })

  it('expectedLastSeq: the append applies only on that lastSeq, counted after the batch’s earlier writes', async () => {
    const stores = await freshStores()
    await seed(stores)
    const batch = stores.sessions.batch!
    const appendAt = (expectedLastSeq: number, text: string) =>
      ({ type: 'session.append', sessionId: 's', entries: [user(text)], expectedLastSeq }) as StoreWrite
    const results = await batch.write([appendAt(1, 'second'), appendAt(2, 'third')])
    expect(results.map((entries) => (entries as Array<{ seq: number }>)[0]!.seq)).toEqual([2, 3])
    const error = await batch.write([{ type: 'run.update', runId: 'r', patch: { step: 4 } }, appendAt(2, 'late')]).catch((caught: unknown) => caught)
    expect((error as { code?: string }).code).toBe('sequence_conflict')
    expect((error as Error).message).toMatch(/expected lastSeq 2, found 3/)
    expect((await stores.runs.getRun('r'))?.step).toBe(0)
  })

  it('an AgentRuntime run on these stores completes, committing each half-step as one statement (one round trip)', async () => {
    const { stores, statements, transactions } = await countedStores()
    const extensions = new Extensions().use(stores)
    cleanups.push(() => extensions.dispose())
    await extensions.ready()
    const runtime = new AgentRuntime(extensions)
    const tool = defineTool({ name: 'echo', description: 'Echoes', inputSchema: jsonSchema<{ n: number }>({ type: 'object' }), execute: ({ n }) => ({ n }) })
    const model = mockModel((_request, index) => (index < 3 ? { toolCalls: [{ id: `c${index}`, name: 'echo', args: { n: index } }] } : { text: 'done' }))
    await stores.sessions.createSession({ id: 'batched' })
    statements.length = 0
    const output = await runtime.run({ agent: { name: 'echo', model, tools: { echo: tool } }, sessionId: 'batched', input: 'hi' })
    expect(output.finishReason).toBe('stop')
    expect((await stores.runs.getRun(output.runId))?.status).toBe('completed')
    expect((await stores.sessions.listEntries('batched')).map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect((await stores.executions.listByRun(output.runId)).map((record) => [record.callId, record.status, record.attempt])).toEqual([
      ['c0', 'succeeded', 1],
      ['c1', 'succeeded', 1],
      ['c2', 'succeeded', 1],
    ])
    expect(transactions(), 'no BEGIN / COMMIT round trips').toBe(0)
    // The input with the first snapshot; per step a model half (assistant message + journal start) and a tool half
    // (journal finish + tool result + events + snapshot); the last model half with the run's end: 8 batches.
    const batches = statements.filter((statement) => statement.text.startsWith('WITH '))
    expect(batches).toHaveLength(8)
    expect(batches.every((statement) => statement.text.includes('session_entries'))).toBe(true)
    expect(batches.at(-1)!.text).toMatch(/UPDATE \S+\.runs SET/)
  })
})
