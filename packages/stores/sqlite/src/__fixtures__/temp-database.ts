// Test helper: real database files in a fresh temp directory per test, removed afterwards.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { sqliteStores, type SqliteStores, type SqliteStoresOptions } from '../index.js'

const directories: string[] = []
const opened: SqliteStores[] = []

afterEach(() => {
  for (const stores of opened.splice(0)) stores.close()
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** A path to a database file that does not exist yet, in a temp directory removed after the test. */
export function tempDatabasePath(name = 'spindle.db'): string {
  const directory = mkdtempSync(join(tmpdir(), 'spindle-sqlite-'))
  directories.push(directory)
  return join(directory, name)
}

/** Opens stores (closed after the test). */
export function openStores(options: SqliteStoresOptions): SqliteStores {
  const stores = sqliteStores(options)
  opened.push(stores)
  return stores
}
