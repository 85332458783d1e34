// Conformance checks of SessionStore under contention: fencing, parallel appends, two connections, isolation, unicode.
import type { SessionEntry, SessionStore } from '@spindle/core'
import { expect } from 'vitest'
import type { ConformanceChecks } from './harness.js'
import { rejection, rule } from './rule.js'
import { expectExactJson, unicodeFix, unicodeOutcome, unicodeSamples, userEntry } from './samples.js'

const gapFreeFix =
  'assign seq inside the same transaction as the insert (SELECT lastSeq … FOR UPDATE / BEGIN IMMEDIATE, or a single UPDATE … RETURNING on the session row) and keep a UNIQUE (sessionId, seq) constraint'

function assertGapFree(batches: SessionEntry[][], total: number): void {
  const all = batches.flat().map((entry) => entry.seq)
  expect(
    [...all].sort((a, b) => a - b),
    'sequence numbers must be 1…n, each used once',
  ).toEqual(Array.from({ length: total }, (_, i) => i + 1))
  for (const batch of batches) {
    const seqs = batch.map((entry) => entry.seq)
    expect(seqs, 'one append call must get consecutive sequence numbers').toEqual(seqs.map((_, i) => seqs[0] + i))
  }
}

export const sessionStoreConcurrencyRules: ConformanceChecks<SessionStore> = {
  async 'session.append.fencing'({ create }) {
    const store = await create()
    await store.createSession({ id: 's' })
    await store.createSession({ id: 'other' })
    await rule('session.fence.accepts-current', 'append must accept a fence equal to or higher than the highest fence seen for the session', async () => {
      await store.append('s', [userEntry('a')], { fence: 5 })
      await store.append('s', [userEntry('b')], { fence: 5 })
      await store.append('s', [userEntry('c')], { fence: 7 })
    })
    await rule(
      'session.fence.rejects-stale',
      'append must remember the highest fence per session and reject a lower one with StaleFenceError, writing nothing',
      async () => {
        await rejection(() => store.append('s', [userEntry('stale')], { fence: 6 }), { code: 'stale_fence' })
        expect((await store.getSession('s'))?.lastSeq).toBe(3)
        expect((await store.listEntries('s')).map((e) => e.seq)).toEqual([1, 2, 3])
      },
    )
    await rule('session.fence.per-session', 'fences are per session: a high fence on one session must not reject a lower fence on another', async () => {
      await store.append('other', [userEntry('x')], { fence: 1 })
      await store.append('s', [userEntry('d')], { fence: 8 })
      expect((await store.getSession('s'))?.lastSeq).toBe(4)
    })
  },

  async 'session.append.concurrent'({ create }) {
    const store = await create()
    await store.createSession({ id: 's' })
    const calls = 40
    const batches = await rule(
      'session.append.concurrent-safe',
      `parallel appends must all succeed (retry on SQLITE_BUSY / serialization failures inside the store); ${gapFreeFix}`,
      () =>
        Promise.all(Array.from({ length: calls }, (_, i) => store.append('s', i % 3 === 0 ? [userEntry(`${i}a`), userEntry(`${i}b`)] : [userEntry(`${i}`)]))),
    )
    const total = batches.reduce((sum, batch) => sum + batch.length, 0)
    await rule('session.append.gap-free-concurrent', `parallel appends must produce unique, gap-free sequence numbers; ${gapFreeFix}`, async () => {
      assertGapFree(batches, total)
      expect((await store.getSession('s'))?.lastSeq).toBe(total)
      expect((await store.listEntries('s')).map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1))
    })
  },

  async 'session.append.two-connections'({ create, secondConnection }) {
    const store = await create()
    const other = await secondConnection!(store)
    await store.createSession({ id: 's' })
    await rule('session.connections.shared', 'a second connection must see the data written through the first', async () => {
      expect((await other.getSession('s'))?.id).toBe('s')
    })
    const calls = 20
    const batches = await rule('session.append.two-connections', `interleaved appends from two connections must all succeed; ${gapFreeFix}`, () =>
      Promise.all(Array.from({ length: calls }, (_, i) => (i % 2 === 0 ? store : other).append('s', [userEntry(`from ${i % 2}: ${i}`)]))),
    )
    await rule('session.append.gap-free-two-connections', `appends from two connections must share one gap-free sequence; ${gapFreeFix}`, async () => {
      assertGapFree(batches, calls)
      expect((await other.listEntries('s')).map((e) => e.seq)).toEqual((await store.listEntries('s')).map((e) => e.seq))
      expect((await store.getSession('s'))?.lastSeq).toBe(calls)
    })
  },

  async 'session.fence.two-connections'({ create, secondConnection }) {
    const store = await create()
    const other = await secondConnection!(store)
    await store.createSession({ id: 's' })
    await store.append('s', [userEntry('lease 5')], { fence: 5 })
    await rule(
      'session.fence.two-connections',
      'the highest fence must be stored with the session (a column updated in the append transaction), not in process memory: a lower fence from another connection must fail with StaleFenceError',
      async () => {
        await rejection(() => other.append('s', [userEntry('stale')], { fence: 4 }), { code: 'stale_fence' })
        await other.append('s', [userEntry('lease 6')], { fence: 6 })
        await rejection(() => store.append('s', [userEntry('stale again')], { fence: 5 }), { code: 'stale_fence' })
        expect((await store.listEntries('s')).map((e) => e.seq)).toEqual([1, 2])
      },
    )
  },

  async 'session.isolation'({ create }) {
    const first = await create()
    const second = await create()
    await first.createSession({ id: 'shared-id', title: 'first' })
    await first.append('shared-id', [userEntry('only in first')])
    await rule(
      'session.isolation',
      'two stores returned by create() must never see each other’s data: keep state per instance (no module-level maps), use a fresh database/schema/prefix per instance',
      async () => {
        expect(await second.getSession('shared-id')).toBeUndefined()
        expect(await second.listSessions()).toEqual([])
        await second.createSession({ id: 'shared-id', title: 'second' })
        expect(await second.listEntries('shared-id')).toEqual([])
        expect((await first.getSession('shared-id'))?.title).toBe('first')
      },
    )
  },

  async 'session.unicode'({ create }) {
    const store = await create()
    for (const [name, sample] of Object.entries(unicodeSamples)) {
      await rule(`session.unicode.${name}`, unicodeFix, async () => {
        await store.createSession({ id: `log-${name}` })
        let lastSeq = 0
        const outcome = await unicodeOutcome(
          sample,
          async () => {
            try {
              lastSeq = (await store.append(`log-${name}`, [userEntry(sample)]))[0].seq
            } finally {
              const stored = (await store.getSession(`log-${name}`))?.lastSeq
              expect(stored, 'a rejected append must write nothing').toBe(lastSeq)
            }
          },
          async () => {
            const entry = (await store.listEntries(`log-${name}`, { after: lastSeq - 1 }))[0]
            return entry?.kind === 'message' ? entry.message : entry
          },
          { role: 'user', content: sample },
        )
        await expectExactJson(`session.unicode.json.${name}`, sample, outcome)
        const title = await unicodeOutcome(
          sample,
          async () => {
            await store.deleteSession(`meta-${name}`)
            await store.createSession({ id: `meta-${name}`, title: sample, metadata: { [`key ${sample}`]: sample } })
          },
          async () => {
            const record = await store.getSession(`meta-${name}`)
            return { title: record?.title, metadata: record?.metadata }
          },
          { title: sample, metadata: { [`key ${sample}`]: sample } },
        )
        expect(title, 'the same string must get the same outcome in a message and in session fields').toBe(outcome)
      })
    }
  },
}
