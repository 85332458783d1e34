import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { ConfigurationError } from '@spindle/core'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { nativeBindingError, newSqliteDatabase, type SqliteDriver } from './native-binding-error.js'

const require = createRequire(import.meta.url)
const packageDir = dirname(require.resolve('better-sqlite3/package.json'))
const scratch = mkdtempSync(join(tmpdir(), 'spindle-binding-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/**
 * A real copy of the installed better-sqlite3 without its `build/` folder — what an install with scripts off leaves
 * behind. Its own `bindings` dependency is linked in, so loading it fails exactly as in a user's project.
 */
function bindingLessBetterSqlite3(): SqliteDriver {
  const copy = join(scratch, 'node_modules', 'better-sqlite3')
  mkdirSync(copy, { recursive: true })
  cpSync(join(packageDir, 'lib'), join(copy, 'lib'), { recursive: true })
  cpSync(join(packageDir, 'package.json'), join(copy, 'package.json'))
  const bindings = realpathSync(dirname(createRequire(join(packageDir, 'package.json')).resolve('bindings/package.json')))
  symlinkSync(bindings, join(scratch, 'node_modules', 'bindings'), 'dir')
  return createRequire(join(scratch, 'index.js'))('better-sqlite3') as SqliteDriver
}

describe('a better-sqlite3 without its native binding', () => {
  it('opening a database says what to run, as a ConfigurationError keeping the native error', () => {
    const Driver = bindingLessBetterSqlite3()
    let caught: unknown
    try {
      newSqliteDatabase(join(scratch, 'app.db'), {}, Driver)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigurationError)
    const error = caught as ConfigurationError
    expect(error.message).toMatch(/^\[spindle\/store-sqlite\] better-sqlite3 cannot load its native binding: its compiled addon/)
    expect(error.message).toContain('npm rebuild better-sqlite3')
    expect(error.message).toContain('onlyBuiltDependencies')
    expect(error.message).toContain('--ignore-scripts')
    expect(error.details).toEqual({ reason: 'binding_missing' })
    expect((error.cause as Error).message).toContain('Could not locate the bindings file')
  })

  it('an addon that dlopen refuses (here: a file that is no shared object) gets the same advice', () => {
    const broken = join(scratch, 'broken.node')
    writeFileSync(broken, 'not an ELF file')
    let native: unknown
    try {
      new BetterSqlite3(':memory:', { nativeBinding: broken })
    } catch (error) {
      native = error
    }
    const error = nativeBindingError(native)
    expect(error).toBeInstanceOf(ConfigurationError)
    expect(error?.details).toEqual({ reason: 'binding_unloadable' })
    expect(error?.message).toContain('npm rebuild better-sqlite3')
  })

  it('an addon built for another Node.js names this Node version', () => {
    // Node's own wording for an ABI mismatch (src/node_binding.cc); no addon for another ABI is installable here.
    const native = Object.assign(
      new Error(
        `The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 108. This version of Node.js requires\nNODE_MODULE_VERSION ${process.versions.modules}. Please try re-compiling or re-installing\nthe module (for instance, using \`npm rebuild\` or \`npm install\`).`,
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    )
    const error = nativeBindingError(native)
    expect(error?.details).toEqual({ reason: 'node_version_mismatch' })
    expect(error?.message).toContain(`this is ${process.version}`)
    expect(error?.message).toContain('npm rebuild better-sqlite3')
  })

  it('leaves other errors alone, and the real driver opens as before', () => {
    expect(nativeBindingError(new Error('SQLITE_CANTOPEN'))).toBeUndefined()
    expect(nativeBindingError('text')).toBeUndefined()
    const database = newSqliteDatabase(':memory:', {})
    expect(database.prepare('select 1 as one').get()).toEqual({ one: 1 })
    database.close()
  })
})
