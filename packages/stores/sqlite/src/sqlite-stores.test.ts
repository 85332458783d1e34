import BetterSqlite3 from 'better-sqlite3'
import { ConfigurationError, Extensions, type Stores } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import * as entry from './index.js'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

describe('sqliteStores', () => {
  it('exports its documented API from the package entry', () => {
    for (const name of [
      'sqliteStores',
      'SqliteStores',
      'SqliteSessionStore',
      'SqliteRunStore',
      'SqliteExecutionStore',
      'SqliteSnapshotStore',
      'SqliteEmbeddingStore',
      'SqliteArtifactStore',
      'migrateDatabase',
      'sqliteSchemaVersion',
      'openDatabase',
      'mapSqliteError',
    ]) {
      expect(entry, name).toHaveProperty(name)
    }
  })

  it('is a Stores bundle whose own properties are exactly the six stores', () => {
    const stores = openStores({ path: tempDatabasePath() })
    expect(Object.keys(stores).sort()).toEqual(['artifacts', 'embeddings', 'executions', 'runs', 'sessions', 'snapshots'])
    const bundle: Stores = stores
    for (const store of Object.values(bundle)) expect(store.specificationVersion).toBe('v1')
    expect(stores.sessions).toBeInstanceOf(entry.SqliteSessionStore)
    expect(stores.artifacts).toBeInstanceOf(entry.SqliteArtifactStore)
  })

  it('is a plugin: use() installs the six stores and dispose() closes the database', async () => {
    const stores = entry.sqliteStores({ path: tempDatabasePath() })
    const extensions = new Extensions().use(stores)
    await extensions.ready()
    expect(stores.name).toBe('store-sqlite')
    expect(extensions.stores.sessions).toBe(stores.sessions)
    expect(extensions.stores.runs).toBe(stores.runs)
    expect(extensions.stores.executions).toBe(stores.executions)
    expect(extensions.stores.snapshots).toBe(stores.snapshots)
    expect(extensions.stores.embeddings).toBe(stores.embeddings)
    expect(extensions.stores.artifacts).toBe(stores.artifacts)
    await extensions.stores.sessions!.createSession({ id: 'via-plugin' })
    await extensions.dispose()
    expect(stores.database.open).toBe(false)
    stores.close() // idempotent
  })

  it('setStores(stores) directly installs only the stores', () => {
    const stores = openStores({ path: ':memory:' })
    const extensions = new Extensions().setStores(stores)
    expect(Object.keys(extensions.stores).sort()).toEqual(['artifacts', 'embeddings', 'executions', 'runs', 'sessions', 'snapshots'])
  })

  it('uses an injected database, migrates it, and leaves it open on close()', async () => {
    const database = new BetterSqlite3(tempDatabasePath())
    const stores = entry.sqliteStores({ database })
    await stores.sessions.createSession({ id: 's' })
    stores.close()
    expect(database.open).toBe(true)
    expect(database.prepare('SELECT id FROM sessions').pluck().all()).toEqual(['s'])
    expect(database.pragma('user_version', { simple: true })).toBe(entry.sqliteSchemaVersion)
    database.close()
  })

  it('asks for a path or a database', () => {
    expect(() => entry.sqliteStores({})).toThrow(ConfigurationError)
    expect(() => entry.sqliteStores({})).toThrow(/needs `path`/)
  })
})
