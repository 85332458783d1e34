// Pagination options the memory store takes must work on PostgreSQL too: `limit: Infinity` ("no limit") and
// fractional bounds (a `before` from `performance.timeOrigin + performance.now()`). Passed to bigint parameters
// as they were, they failed every list method with "invalid input syntax for type bigint".
import { memoryStores, type Stores } from '@spindle/core'
import { afterEach, expect, it } from 'vitest'
import { postgresStores, type PostgresStores } from './index.js'
import { afterParameter, beforeParameter, limitParameter } from './list-bounds.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const opened: Array<{ stores: PostgresStores; schema: string }> = []
afterEach(async () => {
  for (const { stores, schema } of opened.splice(0)) {
    await stores.close()
    await dropSchema(schema)
  }
})

async function fill(stores: Stores): Promise<void> {
  await stores.sessions.createSession({ id: 's', resourceId: 'tenant' })
  await stores.sessions.append('s', [1, 2, 3].map((n) => ({ kind: 'message' as const, message: { role: 'user' as const, content: `m${n}` } })))
  await stores.runs.createRun({ id: 'r', sessionId: 's', request: {} })
  await stores.runs.appendEvents('r', [1, 2, 3].map((seq) => ({ type: 'run.started', runId: 'r', sessionId: 's', seq, timestamp: 1 }) as never))
  await stores.artifacts.put('hello')
  await stores.embeddings.upsert([
    { id: 'a', vector: [1, 0] },
    { id: 'b', vector: [0, 1] },
  ])
}

async function listings(stores: Stores): Promise<unknown> {
  const seqs = (entries: Array<{ seq: number }>) => entries.map((entry) => entry.seq)
  const later = Date.now() + 60_000.5
  return {
    entries: seqs(await stores.sessions.listEntries('s', { limit: Infinity })),
    entriesFractional: seqs(await stores.sessions.listEntries('s', { after: 1.5, before: 3.5, limit: 1.9 })),
    entriesUnbounded: seqs(await stores.sessions.listEntries('s', { after: -Infinity, before: Infinity, order: 'desc' })),
    sessions: (await stores.sessions.listSessions({ limit: Infinity, before: later })).map((session) => session.id),
    byResource: (await stores.sessions.listSessions({ resourceId: 'tenant', limit: Infinity, before: Infinity })).map((session) => session.id),
    runs: (await stores.runs.listRuns({ limit: Infinity, before: later, status: 'queued' })).map((run) => run.id),
    events: seqs(await stores.runs.listEvents('r', { limit: Infinity, after: -Infinity })),
    eventsFractional: seqs(await stores.runs.listEvents('r', { after: 1.5, limit: 1 })),
    artifacts: (await stores.artifacts.list({ limit: Infinity, before: later })).map((artifact) => artifact.size),
    embeddings: (await stores.embeddings.query({ vector: [1, 0.5], topK: Infinity })).map((match) => match.id),
  }
}

it('bounds become the integers that select the same rows, or no bound', () => {
  expect([limitParameter(undefined), limitParameter(Infinity), limitParameter(2.9), limitParameter(-3)]).toEqual([null, null, 2, 0])
  expect([afterParameter(-Infinity), afterParameter(1.5), afterParameter(-1.5), afterParameter(1e300)]).toEqual([null, 1, -2, Number.MAX_SAFE_INTEGER])
  expect([beforeParameter(Infinity), beforeParameter(2.5), beforeParameter(2), beforeParameter(-1e300)]).toEqual([null, 3, 2, -Number.MAX_SAFE_INTEGER])
})

describePostgres('list bounds', () => {
  it('limit: Infinity means no limit and fractional bounds select what they do in the memory store', async () => {
    const memory = memoryStores()
    await fill(memory)
    const expected = await listings(memory)
    expect(expected).toMatchObject({ entries: [1, 2, 3], entriesFractional: [2], entriesUnbounded: [3, 2, 1], eventsFractional: [2], embeddings: ['a', 'b'] })
    const schema = randomSchemaName()
    const stores = postgresStores({ connectionString: databaseUrl, schema, vectorSearch: 'exact' })
    opened.push({ stores, schema })
    await stores.migrate()
    await fill(stores)
    expect(await listings(stores)).toEqual(expected)
  })
})
