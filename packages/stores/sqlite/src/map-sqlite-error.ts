// Translates native better-sqlite3 errors (SQLITE_BUSY, SQLITE_CONSTRAINT_*, …) into Spindle's core errors.
import { DuplicateError, NotFoundError, SpindleError, StoreError } from '@spindle/core'

const prefix = '[spindle/store-sqlite]'

/** The native error code of a better-sqlite3 `SqliteError` (e.g. `SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`), if any. */
export function sqliteErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined
}

/**
 * Maps any error thrown while running `action` to a Spindle error. Spindle errors pass through unchanged;
 * the native error is always kept as `cause`.
 *
 * @example
 * try { statement.run() } catch (error) { throw mapSqliteError(error, 'append to session "s1"') }
 */
export function mapSqliteError(error: unknown, action: string): SpindleError {
  if (SpindleError.isInstance(error)) return error
  const code = sqliteErrorCode(error)
  const detail = error instanceof Error ? error.message : String(error)
  const details = { sqliteCode: code, action }
  if (code === undefined) {
    return new StoreError(`${prefix} Could not ${action}: ${detail}`, { cause: error, details })
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StoreError(
      `${prefix} Could not ${action}: the database is locked by another connection (${code}); retry, or raise busyTimeoutMs if writers often wait this long`,
      { cause: error, details, isRetryable: true },
    )
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new DuplicateError(`${prefix} Could not ${action}: a record with the same key already exists (${detail})`, {
      cause: error,
      details,
    })
  }
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new NotFoundError(`${prefix} Could not ${action}: it refers to a record that does not exist (${detail})`, {
      cause: error,
      details,
    })
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new StoreError(
      `${prefix} Could not ${action}: the database is read-only (${code}); open it without \`readonly: true\` and check the file's permissions`,
      { cause: error, details },
    )
  }
  if (code === 'SQLITE_FULL') {
    return new StoreError(`${prefix} Could not ${action}: the disk or database is full (${code}); free some space and retry`, {
      cause: error,
      details,
    })
  }
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
    return new StoreError(
      `${prefix} Could not ${action}: the file is not a SQLite database or is corrupt (${code}); point \`path\` at a Spindle database or restore a backup`,
      { cause: error, details },
    )
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new StoreError(`${prefix} Could not ${action}: the database file cannot be opened (${code}); check that its directory exists and is writable`, {
      cause: error,
      details,
    })
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return new StoreError(`${prefix} Could not ${action}: a disk I/O error happened (${code}: ${detail}); check the disk and retry`, {
      cause: error,
      details,
      isRetryable: code === 'SQLITE_IOERR_BLOCKED',
    })
  }
  return new StoreError(`${prefix} Could not ${action}: ${detail} (${code})`, { cause: error, details })
}

/** Runs `body`, translating whatever it throws with `mapSqliteError`. */
export function withSqliteErrors<T>(action: string | (() => string), body: () => T): T {
  try {
    return body()
  } catch (error) {
    throw mapSqliteError(error, typeof action === 'string' ? action : action())
  }
}
