import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

describe('openDatabase', () => {
  it('turns on WAL, a busy timeout, synchronous=NORMAL and foreign keys', () => {
    const stores = openStores({ path: tempDatabasePath(), busyTimeoutMs: 1234 })
    const database = stores.database
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(database.pragma('busy_timeout', { simple: true })).toBe(1234)
    expect(database.pragma('synchronous', { simple: true })).toBe(1)
    expect(database.pragma('foreign_keys', { simple: true })).toBe(1)
  })

  it('works on :memory:', async () => {
    const stores = openStores({ path: ':memory:' })
    expect(stores.database.memory).toBe(true)
    const session = await stores.sessions.createSession()
    expect((await stores.sessions.getSession(session.id))?.id).toBe(session.id)
  })
})
