// The newest entries of a kind (the context window's "latest compaction" lookup) are read from the end of the log:
// the same entries (frozen, shared) as the whole-log path returns, for every bound and limit.
import { describe, expect, it } from 'vitest'
import type { SessionEntryInput } from '../../spec/session-store.js'
import { MemorySessionStore } from './memory-session-store.js'

async function seeded(): Promise<MemorySessionStore> {
  const sessions = new MemorySessionStore()
  await sessions.createSession({ id: 's' })
  const entries: SessionEntryInput[] = []
  for (let index = 1; index <= 40; index++) {
    entries.push(
      index % 7 === 0
        ? { kind: 'compaction', compaction: { throughSeq: index - 1, strategy: 'truncate', summary: `through ${index - 1}` } }
        : { kind: 'message', message: { role: 'user', content: `m${index}` } },
    )
  }
  await sessions.append('s', entries)
  return sessions
}

describe('MemorySessionStore listEntries, newest of a kind', () => {
  it('returns what filtering the whole log newest-first returns, for every bound and limit', async () => {
    const sessions = await seeded()
    const all = await sessions.listEntries('s')
    for (const kind of ['compaction', 'message'] as const) {
      for (const bounds of [{}, { after: 10 }, { before: 30 }, { after: 7, before: 28 }, { after: 50 }]) {
        for (const limit of [0, 1, 2, 1.5, 100, Number.POSITIVE_INFINITY, -1]) {
          const want = all
            .filter((entry) => entry.kind === kind && entry.seq > (bounds.after ?? -Infinity) && entry.seq < (bounds.before ?? Infinity))
            .reverse()
            .slice(0, Math.max(0, limit))
          expect(await sessions.listEntries('s', { ...bounds, kind, order: 'desc', limit }), JSON.stringify({ kind, bounds, limit })).toEqual(want)
        }
      }
    }
  })

  it('hands out entries no caller can change: frozen at every depth, so changing one never reaches the log', async () => {
    const sessions = await seeded()
    const [latest] = await sessions.listEntries('s', { kind: 'compaction', order: 'desc', limit: 1 })
    expect(latest?.kind === 'compaction' && latest.compaction.throughSeq).toBe(34)
    expect(() => {
      if (latest?.kind === 'compaction') latest.compaction.summary = 'changed'
    }).toThrow(TypeError)
    const [again] = await sessions.listEntries('s', { kind: 'compaction', order: 'desc', limit: 1 })
    expect(again?.kind === 'compaction' && again.compaction.summary).toBe('through 34')
  })
})
