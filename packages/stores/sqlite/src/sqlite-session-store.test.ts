import { NotFoundError, StaleFenceError, StoreError, type ModelMessage, type SessionEntryInput } from '@spindle/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

const user = (content: string): SessionEntryInput => ({ kind: 'message', message: { role: 'user', content } })

describe('SqliteSessionStore', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('appends with gap-free sequence numbers read from the log', async () => {
    const { sessions } = openStores({ path: tempDatabasePath() })
    await sessions.createSession({ id: 's' })
    const first = await sessions.append('s', [user('a'), user('b')])
    const second = await sessions.append('s', [user('c')])
    expect([...first, ...second].map((entry) => entry.seq)).toEqual([1, 2, 3])
    expect((await sessions.getSession('s'))?.lastSeq).toBe(3)
    expect(await sessions.append('s', [])).toEqual([])
    expect((await sessions.getSession('s'))?.lastSeq).toBe(3)
    await expect(sessions.append('missing', [user('x')])).rejects.toBeInstanceOf(NotFoundError)
  })

  it('rejects a fence lower than the highest seen, and remembers it across reopen', async () => {
    const path = tempDatabasePath()
    const stores = openStores({ path })
    await stores.sessions.createSession({ id: 's' })
    await stores.sessions.append('s', [user('a')], { fence: 4 })
    await expect(stores.sessions.append('s', [user('b')], { fence: 3 })).rejects.toBeInstanceOf(StaleFenceError)
    stores.close()
    const reopened = openStores({ path })
    await expect(reopened.sessions.append('s', [user('c')], { fence: 2 })).rejects.toThrow(/lost its session lease/)
    expect((await reopened.sessions.append('s', [user('d')], { fence: 4 }))[0]?.seq).toBe(2)
  })

  it('lists entries by range, order, kind and limit', async () => {
    const { sessions } = openStores({ path: tempDatabasePath() })
    await sessions.createSession({ id: 's' })
    await sessions.append('s', [user('1'), user('2'), user('3')])
    await sessions.append('s', [{ kind: 'compaction', compaction: { throughSeq: 3, strategy: 'truncate', summary: 'sum' }, runId: 'run-1' }])
    await sessions.append('s', [user('5'), user('6')])
    const seqs = async (options: Parameters<typeof sessions.listEntries>[1]) => (await sessions.listEntries('s', options)).map((e) => e.seq)
    expect(await seqs({})).toEqual([1, 2, 3, 4, 5, 6])
    expect(await seqs({ after: 2, before: 6 })).toEqual([3, 4, 5])
    expect(await seqs({ order: 'desc', limit: 2 })).toEqual([6, 5])
    expect(await seqs({ kind: 'message', after: 2, limit: 2 })).toEqual([3, 5])
    expect(await seqs({ limit: 0 })).toEqual([])
    const [compaction] = await sessions.listEntries('s', { kind: 'compaction', order: 'desc', limit: 1 })
    expect(compaction).toMatchObject({ kind: 'compaction', seq: 4, runId: 'run-1', compaction: { throughSeq: 3, summary: 'sum' } })
    expect(await sessions.listEntries('unknown')).toEqual([])
  })

  it('reads the log with index range scans, never a scan of the whole table', () => {
    const { database } = openStores({ path: tempDatabasePath() })
    const plan = (sql: string) => (database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((row) => row.detail).join('; ')
    const range = plan("SELECT * FROM session_entries WHERE session_id = 's' AND seq > 10 AND seq < 20 ORDER BY seq DESC LIMIT 5")
    expect(range).toMatch(/SEARCH session_entries USING INDEX sqlite_autoindex_session_entries_1 \(session_id=\? AND seq>\? AND seq<\?\)/)
    const byKind = plan(
      "SELECT * FROM session_entries INDEXED BY session_entries_compactions WHERE kind = 'compaction' AND session_id = 's' AND seq > 0 AND seq < 99 ORDER BY seq DESC LIMIT 1",
    )
    expect(byKind).toMatch(/SEARCH session_entries USING INDEX session_entries_compactions \(session_id=\? AND seq>\? AND seq<\?\)/)
    expect(`${range}; ${byKind}`).not.toMatch(/TEMP B-TREE|SCAN session_entries/)
    // The log's last seq (what an append continues from) is a search from the end of the session's key range.
    const lastSeq = plan("SELECT max(seq) FROM session_entries WHERE session_id = 's'")
    expect(lastSeq).toBe('SEARCH session_entries USING COVERING INDEX sqlite_autoindex_session_entries_1 (session_id=?)')
  })

  it('round-trips NUL, lone surrogates, RTL and emoji in messages, titles and metadata exactly', async () => {
    const path = tempDatabasePath()
    const tricky = ['nul:\u0000:end', 'lone high \uD800 and low \uDC00', 'rtl \u05E9\u05DC\u05D5\u05DD \u202Eabc', 'emoji 👩🏽‍💻🇫🇷', '\uDBFF']
    const stores = openStores({ path })
    await stores.sessions.createSession({ id: 'u', title: tricky.join('|'), metadata: { [tricky[1]!]: tricky, nested: { x: tricky[0]! } } })
    const message: ModelMessage = {
      role: 'assistant',
      content: [
        { type: 'text', text: tricky.join('') },
        { type: 'tool-call', toolCallId: 'c\u0000', toolName: 'echo', args: { value: tricky[4]! } },
      ],
    }
    await stores.sessions.append('u', [{ kind: 'message', message }])
    stores.close()
    const reopened = openStores({ path })
    const session = await reopened.sessions.getSession('u')
    expect(session?.title).toBe(tricky.join('|'))
    expect(session?.metadata).toEqual({ [tricky[1]!]: tricky, nested: { x: tricky[0]! } })
    const [entry] = await reopened.sessions.listEntries('u')
    expect(entry?.kind === 'message' && entry.message).toEqual(message)
    const text =
      entry?.kind === 'message' && entry.message.role === 'assistant' && entry.message.content[0]?.type === 'text' ? entry.message.content[0].text : ''
    expect(text.length).toBe(tricky.join('').length)
    expect(text.charCodeAt(text.indexOf('high ') + 5)).toBe(0xd800)
  })

  it('rejects an id with a lone surrogate explicitly rather than storing a corrupted key', async () => {
    const { sessions } = openStores({ path: tempDatabasePath() })
    await expect(sessions.createSession({ id: 'bad\uD800' })).rejects.toBeInstanceOf(StoreError)
    await expect(sessions.createSession({ id: 'bad\uD800' })).rejects.toThrow(/lone UTF-16 surrogate/)
    expect(await sessions.listSessions()).toEqual([])
  })

  it('lists sessions newest first, by resource, paginated with before', async () => {
    const { sessions } = openStores({ path: tempDatabasePath() })
    await sessions.createSession({ id: 'a', resourceId: 'user-1' })
    await new Promise((resolve) => setTimeout(resolve, 3))
    await sessions.createSession({ id: 'b', resourceId: 'user-2' })
    await new Promise((resolve) => setTimeout(resolve, 3))
    await sessions.createSession({ id: 'c', resourceId: 'user-1' })
    expect((await sessions.listSessions()).map((s) => s.id)).toEqual(['c', 'b', 'a'])
    expect((await sessions.listSessions({ resourceId: 'user-1' })).map((s) => s.id)).toEqual(['c', 'a'])
    const [newest] = await sessions.listSessions({ limit: 1 })
    expect((await sessions.listSessions({ before: newest!.updatedAt })).map((s) => s.id)).toEqual(['b', 'a'])
  })

  it('an append writes the log only: lastSeq and updatedAt come from the last entry, and never go backwards', async () => {
    const { sessions, database } = openStores({ path: tempDatabasePath() })
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_000)
    await sessions.createSession({ id: 'old' })
    now.mockReturnValue(2_000)
    await sessions.createSession({ id: 'new' })
    const sessionRows = () => database.prepare('SELECT * FROM sessions ORDER BY id').all()
    const rowsBefore = sessionRows()
    now.mockReturnValue(3_000)
    await sessions.append('old', [user('a'), user('b')])
    // The session row is untouched (no fence given), yet the session reads as appended to.
    expect(sessionRows()).toEqual(rowsBefore)
    expect(await sessions.getSession('old')).toMatchObject({ lastSeq: 2, createdAt: 1_000, updatedAt: 3_000 })
    expect((await sessions.listSessions()).map((session) => [session.id, session.updatedAt])).toEqual([
      ['old', 3_000],
      ['new', 2_000],
    ])
    expect((await sessions.listSessions({ before: 3_000 })).map((session) => session.id)).toEqual(['new'])
    // The clock steps back: entries keep the session's time, so updatedAt and the log's times never decrease.
    now.mockReturnValue(500)
    const [late] = await sessions.append('old', [user('c')])
    expect(late).toMatchObject({ seq: 3, createdAt: 3_000 })
    expect((await sessions.getSession('old'))?.updatedAt).toBe(3_000)
    // A rename is later than the last entry; the next append is later than the rename.
    now.mockReturnValue(4_000)
    expect(await sessions.updateSession('old', { title: 'renamed' })).toMatchObject({ lastSeq: 3, updatedAt: 4_000, title: 'renamed' })
    now.mockReturnValue(3_500)
    expect((await sessions.append('old', [user('d')]))[0]).toMatchObject({ seq: 4, createdAt: 4_000 })
    expect(await sessions.getSession('old')).toMatchObject({ lastSeq: 4, updatedAt: 4_000 })
    // A newer fence is the one case that writes the session row.
    await sessions.append('new', [], { fence: 9 })
    expect(database.prepare("SELECT fence FROM sessions WHERE id = 'new'").pluck().get()).toBe(9)
    expect(await sessions.getSession('new')).toMatchObject({ lastSeq: 0, updatedAt: 2_000 })
  })

  it('deletes a session together with its whole log', async () => {
    const { sessions, database } = openStores({ path: tempDatabasePath() })
    await sessions.createSession({ id: 'gone' })
    await sessions.createSession({ id: 'kept' })
    await sessions.append('gone', [user('1'), user('2')])
    await sessions.append('kept', [user('1')])
    await sessions.deleteSession('gone')
    expect(await sessions.getSession('gone')).toBeUndefined()
    expect(database.prepare("SELECT count(*) FROM session_entries WHERE session_id = 'gone'").pluck().get()).toBe(0)
    expect(await sessions.listEntries('kept')).toHaveLength(1)
  })
})
