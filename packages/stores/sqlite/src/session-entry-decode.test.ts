// listEntries reads each row as one JSON text built by SQLite (seq, kind, time, run id, body): every field must come
// back exactly as appended, whatever the run id or the body holds, in every range, order and kind filter.
import type { SessionEntry, SessionEntryInput } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

const awkwardRunIds = ['run-"quoted"', 'run\\back\\slash', 'run\nnew line\ttab', 'run-ünïcödé-😀', "run-'single'", 'run-]},[{', 'null']

const entries: SessionEntryInput[] = [
  { kind: 'message', message: { role: 'user', content: 'plain' } },
  ...awkwardRunIds.map((runId, index): SessionEntryInput => ({ kind: 'message', runId, message: { role: 'user', content: `from ${runId} #${index}` } })),
  { kind: 'message', message: { role: 'user', content: 'lone \ud800 surrogate, NUL \u0000, quote " and ] }' } },
  {
    kind: 'message',
    runId: 'run-tools',
    message: { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'add', args: { a: 1, nested: { list: [1, null, 'x'] } } }] },
  },
  { kind: 'message', runId: 'run-tools', message: { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'add', result: { sum: 2 } }] } },
  {
    kind: 'compaction',
    runId: 'run-"compacting"',
    compaction: {
      throughSeq: 3,
      strategy: 'summarize',
      summary: 'so far: "a" \\ b',
      carried: [{ seq: 2, message: { role: 'user', content: 'kept' } }],
      tokensBefore: 9,
    },
  },
  { kind: 'compaction', compaction: { throughSeq: 5, strategy: 'truncate' } },
  { kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'after' }] } },
]

/** What an entry must read back as: its input with the session id, seq and time the append returned. */
function expected(appended: SessionEntry[]): SessionEntry[] {
  return appended.map((entry, index) => ({ ...entries[index]!, sessionId: entry.sessionId, seq: entry.seq, createdAt: entry.createdAt }) as SessionEntry)
}

describe('SqliteSessionStore listEntries decoding', () => {
  it('reads back every field of every entry exactly (awkward run ids and bodies, compactions), through a fresh connection too', async () => {
    const path = tempDatabasePath()
    const stores = openStores({ path })
    await stores.sessions.createSession({ id: 's' })
    const want = expected(await stores.sessions.append('s', entries))
    expect(await stores.sessions.listEntries('s')).toEqual(want)
    const fresh = openStores({ path })
    const read = await fresh.sessions.listEntries('s')
    expect(read).toEqual(want)
    // No field an entry did not have (an absent runId stays absent, not null or undefined).
    expect(read.map((entry) => Object.keys(entry).sort())).toEqual(want.map((entry) => Object.keys(entry).sort()))
    expect(read[0]!.createdAt).toBeGreaterThan(1_600_000_000_000)
  })

  it('keeps ranges, order, kind filters and limits', async () => {
    const { sessions } = openStores({ path: tempDatabasePath() })
    await sessions.createSession({ id: 's' })
    const want = expected(await sessions.append('s', entries))
    expect(await sessions.listEntries('s', { after: 3, before: 9 })).toEqual(want.slice(3, 8))
    expect(await sessions.listEntries('s', { order: 'desc', limit: 4 })).toEqual(want.slice(-4).reverse())
    expect(await sessions.listEntries('s', { kind: 'compaction' })).toEqual(want.filter((entry) => entry.kind === 'compaction'))
    expect(await sessions.listEntries('s', { kind: 'compaction', order: 'desc', limit: 1 })).toEqual([want[want.length - 2]])
    expect(await sessions.listEntries('s', { kind: 'message', after: 8 })).toEqual(want.filter((entry) => entry.kind === 'message' && entry.seq > 8))
    expect(await sessions.listEntries('s', { after: want.length })).toEqual([])
    expect(await sessions.listEntries('missing')).toEqual([])
  })

  it('decodes 10,000 entries in order, each with its own seq, run id and body', async () => {
    const { sessions } = openStores({ path: tempDatabasePath() })
    await sessions.createSession({ id: 'big' })
    for (let start = 0; start < 10_000; start += 1_000) {
      const batch: SessionEntryInput[] = []
      for (let index = start; index < start + 1_000; index++)
        batch.push({ kind: 'message', runId: `run-${index >> 2}`, message: { role: 'user', content: `m${index}` } })
      await sessions.append('big', batch)
    }
    const read = await sessions.listEntries('big')
    expect(read).toHaveLength(10_000)
    read.forEach((entry, index) => {
      expect(entry.seq).toBe(index + 1)
      expect(entry.kind === 'message' && entry.runId === `run-${index >> 2}` && entry.message.content === `m${index}`).toBe(true)
    })
  })
})
