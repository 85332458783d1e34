// Opens a better-sqlite3 connection tuned for a durable, concurrent store: WAL, busy timeout, NORMAL sync.
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { StoreError } from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'
import { mapSqliteError } from './map-sqlite-error.js'
import { newSqliteDatabase } from './native-binding-error.js'

/** Options of `openDatabase()`: read-only mode and the busy timeout. */
export interface OpenDatabaseOptions {
  readonly?: boolean
  /** How long a writer waits for another connection's lock before failing with a retryable error. Default 5000. */
  busyTimeoutMs?: number
}

/**
 * Opens `path` (`:memory:` allowed). WAL lets readers run beside one writer across processes;
 * `synchronous = NORMAL` in WAL mode keeps every committed transaction across a process crash
 * (only an OS crash or power loss can drop the last commits).
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): BetterSqlite3.Database {
  if (path !== ':memory:' && path !== '' && !path.startsWith('file:')) {
    const directory = dirname(resolve(path))
    if (!existsSync(directory)) {
      throw new StoreError(
        `[spindle/store-sqlite] Cannot open the database ${JSON.stringify(path)}: the directory ${JSON.stringify(directory)} does not exist; create it first (mkdir -p) or fix \`path\``,
      )
    }
  }
  let database: BetterSqlite3.Database
  try {
    database = newSqliteDatabase(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false })
  } catch (error) {
    throw mapSqliteError(error, `open the database ${JSON.stringify(path)}`)
  }
  try {
    configureDatabase(database, options)
  } catch (error) {
    database.close()
    throw mapSqliteError(error, `configure the database ${JSON.stringify(path)}`)
  }
  return database
}

export function configureDatabase(database: BetterSqlite3.Database, options: OpenDatabaseOptions = {}): void {
  database.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`)
  if (!options.readonly && !database.memory) database.pragma('journal_mode = WAL')
  database.pragma('synchronous = NORMAL')
  database.pragma('foreign_keys = ON')
}
