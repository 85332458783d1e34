// Pagination options the memory store takes must work on SQLite too: `limit: Infinity` ("no limit"), fractional
// bounds and counts. A REAL LIMIT used to fail every list method with "datatype mismatch".
import { memoryStores, type Stores } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

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
  return {
    entries: seqs(await stores.sessions.listEntries('s', { limit: Infinity })),
    entriesFractional: seqs(await stores.sessions.listEntries('s', { after: 1.5, before: 3.5, limit: 1.9 })),
    sessions: (await stores.sessions.listSessions({ limit: Infinity, before: Infinity })).map((session) => session.id),
    byResource: (await stores.sessions.listSessions({ resourceId: 'tenant', limit: Infinity })).map((session) => session.id),
    runs: (await stores.runs.listRuns({ limit: Infinity, status: 'queued' })).map((run) => run.id),
    events: seqs(await stores.runs.listEvents('r', { limit: Infinity, after: -Infinity })),
    eventsFractional: seqs(await stores.runs.listEvents('r', { after: 1.5, limit: 1 })),
    artifacts: (await stores.artifacts.list({ limit: Infinity })).map((artifact) => artifact.size),
    embeddings: (await stores.embeddings.query({ vector: [1, 0.5], topK: Infinity })).map((match) => match.id),
  }
}

describe('list limits', () => {
  it('limit: Infinity means no limit and fractional bounds select what they do in the memory store', async () => {
    const memory = memoryStores()
    await fill(memory)
    const expected = await listings(memory)
    expect(expected).toMatchObject({ entries: [1, 2, 3], entriesFractional: [2], events: [1, 2, 3], eventsFractional: [2], embeddings: ['a', 'b'] })
    const sqlite = openStores({ path: tempDatabasePath() })
    await fill(sqlite)
    expect(await listings(sqlite)).toEqual(expected)
  })
})
