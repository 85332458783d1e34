// The translation of real native SQLite errors (provoked on real files) into Spindle's core errors.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { DuplicateError, NotFoundError, SpindleError, StaleFenceError, StoreError } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { mapSqliteError, sqliteErrorCode } from './map-sqlite-error.js'
import { sqliteStores } from './index.js'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

function nativeError(body: () => unknown): unknown {
  try {
    body()
  } catch (error) {
    return error
  }
  throw new Error('expected the native call to throw')
}

describe('mapSqliteError', () => {
  it('maps SQLITE_BUSY to a retryable StoreError that keeps the native error as cause', () => {
    const path = tempDatabasePath()
    const holder = new BetterSqlite3(path)
    holder.exec('CREATE TABLE t (x INTEGER)')
    const waiter = new BetterSqlite3(path, { timeout: 0 })
    holder.exec('BEGIN IMMEDIATE')
    const native = nativeError(() => waiter.exec('BEGIN IMMEDIATE'))
    holder.exec('ROLLBACK')
    holder.close()
    waiter.close()
    expect(sqliteErrorCode(native)).toBe('SQLITE_BUSY')
    const mapped = mapSqliteError(native, 'append to session "s"')
    expect(mapped).toBeInstanceOf(StoreError)
    expect(mapped.isRetryable).toBe(true)
    expect(mapped.cause).toBe(native)
    expect(mapped.message).toMatch(/^\[spindle\/store-sqlite\] Could not append to session "s": the database is locked/)
    expect(mapped.details).toMatchObject({ sqliteCode: 'SQLITE_BUSY' })
  })

  it('surfaces SQLITE_BUSY from a store write while another connection holds the write lock', async () => {
    const path = tempDatabasePath()
    const stores = openStores({ path, busyTimeoutMs: 0 })
    await stores.sessions.createSession({ id: 's' })
    const holder = new BetterSqlite3(path)
    holder.exec('BEGIN IMMEDIATE')
    try {
      const error = await stores.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: 'x' } }]).catch((e: unknown) => e)
      expect(StoreError.isInstance(error)).toBe(true)
      expect((error as StoreError).isRetryable).toBe(true)
      expect((error as StoreError).code).toBe('store')
    } finally {
      holder.exec('ROLLBACK')
      holder.close()
    }
    // Nothing was half-written, and the store works again once the lock is gone.
    expect((await stores.sessions.getSession('s'))?.lastSeq).toBe(0)
    expect((await stores.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: 'y' } }]))[0]?.seq).toBe(1)
  })

  it('maps UNIQUE and PRIMARY KEY violations to DuplicateError', () => {
    const database = new BetterSqlite3(':memory:')
    database.exec('CREATE TABLE p (id TEXT PRIMARY KEY); CREATE TABLE u (x TEXT UNIQUE)')
    database.exec("INSERT INTO p VALUES ('a'); INSERT INTO u VALUES ('a')")
    const primary = nativeError(() => database.exec("INSERT INTO p VALUES ('a')"))
    const unique = nativeError(() => database.exec("INSERT INTO u VALUES ('a')"))
    database.close()
    expect(sqliteErrorCode(primary)).toBe('SQLITE_CONSTRAINT_PRIMARYKEY')
    expect(sqliteErrorCode(unique)).toBe('SQLITE_CONSTRAINT_UNIQUE')
    for (const native of [primary, unique]) {
      const mapped = mapSqliteError(native, 'insert')
      expect(mapped).toBeInstanceOf(DuplicateError)
      expect(mapped.code).toBe('duplicate')
      expect(mapped.isRetryable).toBe(false)
    }
  })

  it('maps a FOREIGN KEY violation to NotFoundError', async () => {
    const stores = openStores({ path: tempDatabasePath() })
    const native = nativeError(() =>
      stores.database.prepare("INSERT INTO session_entries (session_id, seq, kind, body, created_at) VALUES ('missing', 1, 'message', '{}', 0)").run(),
    )
    expect(sqliteErrorCode(native)).toBe('SQLITE_CONSTRAINT_FOREIGNKEY')
    expect(mapSqliteError(native, 'append')).toBeInstanceOf(NotFoundError)
  })

  it('maps SQLITE_READONLY to a StoreError that says how to fix it', () => {
    const path = tempDatabasePath()
    new BetterSqlite3(path).exec('CREATE TABLE t (x)')
    const reader = new BetterSqlite3(path, { readonly: true })
    const native = nativeError(() => reader.exec('INSERT INTO t VALUES (1)'))
    reader.close()
    expect(sqliteErrorCode(native)).toBe('SQLITE_READONLY')
    const mapped = mapSqliteError(native, 'write')
    expect(mapped).toBeInstanceOf(StoreError)
    expect(mapped.isRetryable).toBe(false)
    expect(mapped.message).toMatch(/read-only.*readonly: true/)
  })

  it('reports a file that is not a database (SQLITE_NOTADB) when opening stores on it', () => {
    const path = tempDatabasePath()
    writeFileSync(path, 'this is certainly not a SQLite database file, just some text '.repeat(20))
    let error: unknown
    try {
      sqliteStores({ path })
    } catch (caught) {
      error = caught
    }
    expect(StoreError.isInstance(error)).toBe(true)
    expect(sqliteErrorCode((error as StoreError).cause)).toBe('SQLITE_NOTADB')
    expect((error as Error).message).toMatch(/not a SQLite database or is corrupt/)
  })

  it('reports a database path whose directory does not exist', () => {
    const path = join(tempDatabasePath(), 'no-such-directory', 'spindle.db')
    expect(() => sqliteStores({ path })).toThrow(StoreError)
    expect(() => sqliteStores({ path })).toThrow(/the directory ".*no-such-directory" does not exist; create it first/)
  })

  it('maps SQLITE_CANTOPEN to a StoreError naming the directory to check', () => {
    // A directory where the database file should be: SQLite cannot open it as a file.
    const native = nativeError(() => new BetterSqlite3(join(tempDatabasePath(), '..')))
    expect(sqliteErrorCode(native)).toBe('SQLITE_CANTOPEN')
    expect(mapSqliteError(native, 'open').message).toMatch(/cannot be opened.*directory exists and is writable/)
  })

  it('passes Spindle errors through and wraps anything else in a StoreError', () => {
    const fence = new StaleFenceError('stale')
    expect(mapSqliteError(fence, 'append')).toBe(fence)
    const plain = new TypeError('boom')
    const mapped = mapSqliteError(plain, 'do a thing')
    expect(SpindleError.isInstance(mapped)).toBe(true)
    expect(mapped).toBeInstanceOf(StoreError)
    expect(mapped.cause).toBe(plain)
    expect(mapped.message).toBe('[spindle/store-sqlite] Could not do a thing: boom')
  })
})
