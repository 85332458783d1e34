// Pagination options a store must take the way the memory store does: `limit: Infinity` ("no limit"), infinite
// `after` / `before`, fractional bounds and counts (a `before` from `performance.timeOrigin + performance.now()`).
// A durable store's suite fills the memory stores and its own with `fillListBounds`, then expects
// `listWithUnusualBounds` to return the same for both.
import type { Stores } from '@spindle/core'

/** Three session entries, three run events, one artifact and two embeddings, in session `s` and run `r`. */
export async function fillListBounds(stores: Stores): Promise<void> {
  await stores.sessions.createSession({ id: 's', resourceId: 'tenant' })
  await stores.sessions.append(
    's',
    [1, 2, 3].map((n) => ({ kind: 'message' as const, message: { role: 'user' as const, content: `m${n}` } })),
  )
  await stores.runs.createRun({ id: 'r', sessionId: 's', request: {} })
  await stores.runs.appendEvents(
    'r',
    [1, 2, 3].map((seq) => ({ type: 'run.started', runId: 'r', sessionId: 's', seq, timestamp: 1 }) as never),
  )
  await stores.artifacts.put('hello')
  await stores.embeddings.upsert([
    { id: 'a', vector: [1, 0] },
    { id: 'b', vector: [0, 1] },
  ])
}

/** What each list method returns for the unusual bounds, as plain values to compare across stores. */
export async function listWithUnusualBounds(stores: Stores): Promise<Record<string, unknown>> {
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
