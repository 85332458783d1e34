import BetterSqlite3 from 'better-sqlite3'
import { StoreError } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { migrations, readSchemaVersion, sqliteSchemaVersion } from './migrations.js'
import { sqliteStores } from './index.js'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

describe('migrations', () => {
  it('creates every table on a fresh file and records the schema version', () => {
    const path = tempDatabasePath()
    const stores = openStores({ path })
    expect(readSchemaVersion(stores.database)).toBe(sqliteSchemaVersion)
    expect(sqliteSchemaVersion).toBe(migrations.at(-1)!.version)
    const tables = stores.database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()
    expect(tables).toEqual(
      expect.arrayContaining(['sessions', 'session_entries', 'runs', 'run_events', 'executions', 'snapshots', 'embeddings', 'artifacts', 'artifact_chunks']),
    )
  })

  it('reopens an existing file without re-running migrations and keeps its data', async () => {
    const path = tempDatabasePath()
    const first = sqliteStores({ path })
    await first.sessions.createSession({ id: 'kept', title: 'still here' })
    first.close()
    const second = openStores({ path })
    expect(readSchemaVersion(second.database)).toBe(sqliteSchemaVersion)
    expect((await second.sessions.getSession('kept'))?.title).toBe('still here')
  })

  it('refuses a database whose schema is newer than this code, telling the user to upgrade', () => {
    const path = tempDatabasePath()
    sqliteStores({ path }).close()
    const raw = new BetterSqlite3(path)
    raw.pragma(`user_version = ${sqliteSchemaVersion + 1}`)
    raw.close()
    let error: unknown
    try {
      sqliteStores({ path })
    } catch (caught) {
      error = caught
    }
    expect(StoreError.isInstance(error)).toBe(true)
    expect((error as StoreError).code).toBe('store')
    expect((error as Error).message).toMatch(/\[spindle\/store-sqlite\].*newer.*upgrade @spindle\/store-sqlite/)
    // The file was left untouched.
    const check = new BetterSqlite3(path, { readonly: true })
    expect(readSchemaVersion(check)).toBe(sqliteSchemaVersion + 1)
    check.close()
  })

  it('runs the migration once when two connections open a fresh file', async () => {
    const path = tempDatabasePath()
    const a = openStores({ path })
    const b = openStores({ path })
    await a.sessions.createSession({ id: 's' })
    expect(await b.sessions.getSession('s')).toBeDefined()
    expect(readSchemaVersion(b.database)).toBe(sqliteSchemaVersion)
  })

  it('read-only: reads work, writes fail with a StoreError, and an unmigrated file is refused', async () => {
    const path = tempDatabasePath()
    const writer = sqliteStores({ path })
    await writer.sessions.createSession({ id: 'r', title: 'read me' })
    writer.close()
    const reader = openStores({ path, readonly: true })
    expect((await reader.sessions.getSession('r'))?.title).toBe('read me')
    await expect(reader.sessions.createSession({ id: 'x' })).rejects.toThrow(/read-only/)

    const emptyPath = tempDatabasePath()
    new BetterSqlite3(emptyPath).close()
    expect(() => sqliteStores({ path: emptyPath, readonly: true })).toThrow(/open it once without `readonly: true`/)
  })
})
