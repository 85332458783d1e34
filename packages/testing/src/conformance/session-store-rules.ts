// Conformance checks of SessionStore, spec v1: records, the gap-free log, listing, cascades, fencing.
import type { SessionStore } from '@spindle/core'
import { expect } from 'vitest'
import { sessionCopyOutRules } from './copy-out-rules.js'
import type { ConformanceChecks } from './harness.js'
import { rejection, rule } from './rule.js'
import { tick, userEntry } from './samples.js'
import { sessionStoreConcurrencyRules } from './session-store-concurrency-rules.js'

/** Every SessionStore check, keyed by id. Each is a plain async function taking a harness. */
export const sessionStoreRules: ConformanceChecks<SessionStore> = {
  async 'session.create-get'({ create }) {
    const store = await create()
    const created = await store.createSession({ id: 's-1', resourceId: 'user-1', title: 'First', metadata: { tag: 'a', n: 1 } })
    await rule(
      'session.create.fields',
      'createSession must return the stored record: id, resourceId, title, metadata, lastSeq 0, numeric createdAt/updatedAt',
      () => {
        expect(created).toMatchObject({ id: 's-1', resourceId: 'user-1', title: 'First', metadata: { tag: 'a', n: 1 }, lastSeq: 0 })
        expect(typeof created.createdAt).toBe('number')
        expect(typeof created.updatedAt).toBe('number')
      },
    )
    await rule('session.get', 'getSession must return what createSession returned', async () => {
      expect(await store.getSession('s-1')).toEqual(created)
    })
    await rule('session.get.unknown', 'getSession must resolve undefined for an unknown id (not throw)', async () => {
      expect(await store.getSession('missing')).toBeUndefined()
    })
    await rule('session.create.generated-id', 'createSession without id must generate a unique id', async () => {
      const a = await store.createSession()
      const b = await store.createSession()
      expect(typeof a.id).toBe('string')
      expect(a.id).not.toBe(b.id)
      expect(a.metadata).toEqual({})
    })
  },

  async 'session.create.duplicate'({ create }) {
    const store = await create()
    await store.createSession({ id: 'dup' })
    await rule('session.create.duplicate', 'createSession with an existing id must throw DuplicateError (map the unique-constraint violation)', () =>
      rejection(() => store.createSession({ id: 'dup' }), { code: 'duplicate' }),
    )
  },

  async 'session.update'({ create }) {
    const store = await create()
    const created = await store.createSession({ id: 's', title: 'old', metadata: { a: 1 } })
    await tick()
    const updated = await store.updateSession('s', { title: 'new', metadata: { b: 2 } })
    await rule('session.update.applies', 'updateSession must store the new title and metadata and return the updated record', async () => {
      expect(updated.title).toBe('new')
      expect(updated.metadata).toMatchObject({ b: 2 })
      expect(updated.updatedAt).toBeGreaterThanOrEqual(created.updatedAt)
      expect(await store.getSession('s')).toEqual(updated)
    })
    await rule('session.update.unknown', 'updateSession on an unknown id must throw NotFoundError', () =>
      rejection(() => store.updateSession('missing', { title: 'x' }), { code: 'not_found' }),
    )
  },

  async 'session.list.newest-first'({ create }) {
    const store = await create()
    const ids = ['s-a', 's-b', 's-c', 's-d']
    for (const [index, id] of ids.entries()) {
      await store.createSession({ id, resourceId: index % 2 === 0 ? 'even' : 'odd' })
      await tick()
    }
    await rule(
      'session.list.order',
      'listSessions must return newest first (ORDER BY updatedAt DESC, id DESC: equal times by id, highest first, in code-unit order)',
      async () => {
        expect((await store.listSessions()).map((s) => s.id)).toEqual(['s-d', 's-c', 's-b', 's-a'])
      },
    )
    await rule('session.list.filter', 'listSessions({ resourceId }) must return only that resource’s sessions', async () => {
      expect((await store.listSessions({ resourceId: 'even' })).map((s) => s.id)).toEqual(['s-c', 's-a'])
    })
    await rule('session.list.pagination', 'listSessions must honour limit and return only sessions with updatedAt strictly before `before`', async () => {
      const first = await store.listSessions({ limit: 2 })
      expect(first.map((s) => s.id)).toEqual(['s-d', 's-c'])
      const next = await store.listSessions({ limit: 2, before: first[first.length - 1].updatedAt })
      expect(next.map((s) => s.id)).toEqual(['s-b', 's-a'])
    })
  },

  async 'session.append.gap-free'({ create }) {
    const store = await create()
    await store.createSession({ id: 's' })
    const first = await store.append('s', [userEntry('one'), userEntry('two', 'run-1'), userEntry('three')])
    const second = await store.append('s', [{ kind: 'compaction', compaction: { throughSeq: 2, strategy: 'truncate', summary: 'sum' } }, userEntry('five')])
    await rule(
      'session.append.gap-free',
      'append must assign seq = lastSeq + 1, +2… per session with no gaps; read lastSeq and insert in the same transaction',
      async () => {
        expect([...first, ...second].map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5])
        expect((await store.getSession('s'))?.lastSeq).toBe(5)
      },
    )
    await rule(
      'session.append.returns-entries',
      'append must return each stored entry with sessionId, seq, createdAt and the input fields unchanged',
      async () => {
        expect(first[1]).toMatchObject({ kind: 'message', message: { role: 'user', content: 'two' }, runId: 'run-1', sessionId: 's', seq: 2 })
        expect(typeof first[1].createdAt).toBe('number')
        expect(second[0]).toMatchObject({ kind: 'compaction', compaction: { throughSeq: 2, strategy: 'truncate', summary: 'sum' } })
        expect(await store.listEntries('s')).toEqual([...first, ...second])
      },
    )
    await rule('session.append.empty', 'append with no entries must return [] and leave lastSeq unchanged', async () => {
      expect(await store.append('s', [])).toEqual([])
      expect((await store.getSession('s'))?.lastSeq).toBe(5)
    })
  },

  async 'session.append.unknown-session'({ create }) {
    const store = await create()
    await rule('session.append.unknown', 'append to an unknown session must throw NotFoundError and write nothing', async () => {
      await rejection(() => store.append('missing', [userEntry('x')]), { code: 'not_found' })
      expect(await store.getSession('missing')).toBeUndefined()
    })
  },

  async 'session.list-entries.pagination'({ create }) {
    const store = await create()
    await store.createSession({ id: 's' })
    await store.append(
      's',
      Array.from({ length: 8 }, (_, i) => userEntry(`m${i + 1}`)),
    )
    await store.append('s', [{ kind: 'compaction', compaction: { throughSeq: 4, strategy: 'truncate' } }, userEntry('m10')])
    const seqs = async (options: Parameters<SessionStore['listEntries']>[1]) => (await store.listEntries('s', options)).map((e) => e.seq)
    await rule('session.entries.after-before', 'listEntries must return only seq > after and seq < before, ascending by default', async () => {
      expect(await seqs({})).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
      expect(await seqs({ after: 7 })).toEqual([8, 9, 10])
      expect(await seqs({ before: 3 })).toEqual([1, 2])
      expect(await seqs({ after: 2, before: 6 })).toEqual([3, 4, 5])
    })
    await rule(
      'session.entries.order-limit',
      'listEntries must apply order before limit: { order: "desc", limit: n } is the n newest entries, newest first',
      async () => {
        expect(await seqs({ order: 'desc', limit: 3 })).toEqual([10, 9, 8])
        expect(await seqs({ limit: 3 })).toEqual([1, 2, 3])
        expect(await seqs({ order: 'desc', before: 5, limit: 2 })).toEqual([4, 3])
      },
    )
    await rule('session.entries.kind', 'listEntries({ kind }) must return only entries of that kind', async () => {
      expect(await seqs({ kind: 'compaction' })).toEqual([9])
      expect(await seqs({ kind: 'message', after: 7 })).toEqual([8, 10])
    })
    await rule('session.entries.paging', 'paging with after = last seq seen and a limit must visit every entry once', async () => {
      const seen: number[] = []
      for (let after = 0; ;) {
        const page = await seqs({ after, limit: 3 })
        if (page.length === 0) break
        seen.push(...page)
        after = page[page.length - 1]
      }
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    })
  },

  async 'session.list.nan-bounds'({ create }) {
    const store = await create()
    await store.createSession({ id: 's' })
    await store.append('s', [userEntry('m1')])
    await rule(
      'session.list.nan-bounds',
      'NaN as limit / after / before (listEntries) or limit / before (listSessions) must be rejected with ConfigurationError naming the option (check Number.isNaN before building the query)',
      async () => {
        const calls: Array<[string, () => Promise<unknown>]> = [
          ['after', () => store.listEntries('s', { after: Number.NaN })],
          ['before', () => store.listEntries('s', { before: Number.NaN })],
          ['limit', () => store.listEntries('s', { limit: Number.NaN })],
          ['limit', () => store.listSessions({ limit: Number.NaN })],
          ['before', () => store.listSessions({ before: Number.NaN })],
        ]
        for (const [option, call] of calls) {
          const error = await rejection(call, { code: 'configuration' })
          expect((error as Error).message).toContain(`"${option}"`)
        }
      },
    )
  },

  async 'session.delete.cascade'({ create }) {
    const store = await create()
    await store.createSession({ id: 's' })
    await store.createSession({ id: 'other' })
    await store.append('s', [userEntry('a'), userEntry('b')])
    await store.append('other', [userEntry('keep')])
    await store.deleteSession('s')
    await rule(
      'session.delete.cascade',
      'deleteSession must delete the session and its whole log (ON DELETE CASCADE or a delete in the same transaction)',
      async () => {
        expect(await store.getSession('s')).toBeUndefined()
        expect((await store.listSessions()).map((s) => s.id)).toEqual(['other'])
        let entries: unknown[] = []
        try {
          entries = await store.listEntries('s')
        } catch (error) {
          await rejection(() => Promise.reject(error), { code: 'not_found' })
        }
        expect(entries).toEqual([])
        await rejection(() => store.append('s', [userEntry('late')]), { code: 'not_found' })
      },
    )
    await rule('session.delete.recreate', 'a session re-created with a deleted id must start an empty log at seq 1', async () => {
      await store.createSession({ id: 's' })
      const [entry] = await store.append('s', [userEntry('fresh')])
      expect(entry.seq).toBe(1)
      expect((await store.listEntries('s')).map((e) => e.seq)).toEqual([1])
      expect((await store.listEntries('other')).length).toBe(1)
    })
  },

  async 'session.values-copied'({ create }) {
    const store = await create()
    const metadata = { nested: { value: 1 } }
    await store.createSession({ id: 's', metadata })
    const input = userEntry('original')
    const [returned] = await store.append('s', [input])
    metadata.nested.value = 2
    ;(input as { message: { content: string } }).message.content = 'mutated'
    ;(returned as { message: { content: string } }).message.content = 'mutated too'
    const read = await store.getSession('s')
    read!.metadata.extra = true
    await rule(
      'session.values-copied',
      'a store must copy values in and out: callers mutating inputs or results must not change stored data (serialize, or structuredClone)',
      async () => {
        expect((await store.getSession('s'))?.metadata).toEqual({ nested: { value: 1 } })
        expect((await store.listEntries('s'))[0]).toMatchObject({ message: { content: 'original' } })
      },
    )
  },

  ...sessionStoreConcurrencyRules,
  ...sessionCopyOutRules,
}
