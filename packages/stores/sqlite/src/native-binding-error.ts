// better-sqlite3 loads its compiled addon on the first `new Database()`. When that addon is missing (install scripts
// off, a failed prebuild download) or built for another Node.js, the native error says nothing about the fix: this
// file turns it into a ConfigurationError that says what to run.
import { ConfigurationError } from '@spindle/core'
import BetterSqlite3 from 'better-sqlite3'

const prefix = '[spindle/store-sqlite]'

/** The constructor `openDatabase` uses; tests inject a copy of better-sqlite3 without its compiled addon. */
export type SqliteDriver = new (path: string, options?: BetterSqlite3.Options) => BetterSqlite3.Database

/**
 * Opens `path` with `Driver` (better-sqlite3 by default); a failure to load the native addon becomes the
 * ConfigurationError of {@link nativeBindingError}, any other error is rethrown as it is.
 */
export function newSqliteDatabase(path: string, options: BetterSqlite3.Options, Driver: SqliteDriver = BetterSqlite3): BetterSqlite3.Database {
  try {
    return new Driver(path, options)
  } catch (error) {
    throw nativeBindingError(error) ?? error
  }
}

/**
 * A ConfigurationError naming the fix when `error` is better-sqlite3 failing to load its native addon
 * (`Could not locate the bindings file`, a `NODE_MODULE_VERSION` mismatch, or another `dlopen` failure);
 * undefined for any other error. The native error is kept as `cause`.
 */
export function nativeBindingError(error: unknown): ConfigurationError | undefined {
  if (!(error instanceof Error)) return undefined
  const code = (error as { code?: unknown }).code
  const message = error.message
  const missing = message.includes('Could not locate the bindings file')
  const otherNode = message.includes('NODE_MODULE_VERSION')
  const unloadable = code === 'ERR_DLOPEN_FAILED' || /better_sqlite3\.node/.test(message)
  if (!missing && !otherNode && !unloadable) return undefined
  const reason = missing
    ? 'its compiled addon (better_sqlite3.node) is missing: its install script did not run, or its prebuilt download failed'
    : otherNode
      ? `its compiled addon was built for another Node.js version (this is ${process.version}, NODE_MODULE_VERSION ${process.versions.modules})`
      : 'its compiled addon could not be loaded by this Node.js'
  return new ConfigurationError(
    `${prefix} better-sqlite3 cannot load its native binding: ${reason}. ` +
      'Run `npm rebuild better-sqlite3` in your project (pnpm: `pnpm rebuild better-sqlite3`, after allowing its build with ' +
      '`onlyBuiltDependencies: [better-sqlite3]` in pnpm-workspace.yaml; npm: do not install with --ignore-scripts). ' +
      'Building from source needs python3, make and a C++ compiler. ' +
      `Native error: ${message.split('\n')[0]}`,
    { cause: error, details: { reason: missing ? 'binding_missing' : otherNode ? 'node_version_mismatch' : 'binding_unloadable' } },
  )
}
