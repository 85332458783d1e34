// Every Spindle error class has its own `Symbol.for` marker and `isInstance`, which hold for an error from another
// copy of @spindle/core (where `instanceof` fails); and no source in the repository checks a Spindle error class with
// `instanceof` outside the class's own file.
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as core from '../index.js'
import { hasErrorMarker } from '../plugin-kit/index.js'

type ErrorClass = (new (...args: never[]) => core.SpindleError) & { isInstance(value: unknown): boolean }

/** Every error class the root entry exports, SpindleError included. */
const errorClasses = Object.entries(core).filter(
  (entry): entry is [string, ErrorClass] =>
    typeof entry[1] === 'function' && (entry[1] === core.SpindleError || entry[1].prototype instanceof core.SpindleError),
)

/** An instance of each class, built with its own constructor arguments. */
function sample(name: string, ErrorClass: ErrorClass): core.SpindleError {
  const make = ErrorClass as unknown as new (...args: unknown[]) => core.SpindleError
  if (name === 'SpindleError') return new make('custom', 'm')
  if (name === 'ToolSchemaError') return new make('tool', 'zod3', 'm')
  if (name === 'ContextAdapterError') return new make('adapter', new Error('m'))
  return new make('m')
}

/** The error as another copy of @spindle/core would throw it: same own properties and markers, another prototype chain. */
function fromAnotherCopy(error: core.SpindleError): object {
  const copy = Object.create(Error.prototype) as Record<PropertyKey, unknown>
  for (const key of Reflect.ownKeys(error)) copy[key] = (error as unknown as Record<PropertyKey, unknown>)[key]
  return copy
}

describe('error markers', () => {
  it('finds every error class of the root entry (at least the 22 of core)', () => {
    expect(errorClasses.length).toBeGreaterThanOrEqual(22)
  })

  for (const [name, ErrorClass] of errorClasses) {
    it(`${name}: isInstance holds for its own errors and those of another copy, and for no other class's`, () => {
      const error = sample(name, ErrorClass)
      expect(error.name).toBe(name)
      expect(Object.hasOwn(ErrorClass, 'isInstance'), `${name} must declare its own static isInstance`).toBe(true)
      expect(ErrorClass.isInstance(error)).toBe(true)
      const foreign = fromAnotherCopy(error)
      expect(foreign instanceof ErrorClass).toBe(false)
      expect(ErrorClass.isInstance(foreign)).toBe(true)
      expect(core.SpindleError.isInstance(foreign)).toBe(true)
      for (const [otherName, Other] of errorClasses) {
        const related = error instanceof Other || Other.prototype instanceof ErrorClass || Other === ErrorClass
        if (!related) expect(Other.isInstance(error), `${otherName}.isInstance(new ${name}())`).toBe(false)
        if (error instanceof Other) expect(Other.isInstance(error), `${otherName}.isInstance(new ${name}()) (a subclass)`).toBe(true)
      }
      expect(ErrorClass.isInstance(new Error('plain'))).toBe(false)
      expect(ErrorClass.isInstance(undefined)).toBe(false)
    })
  }

  it('hasErrorMarker reads only a marker set to true', () => {
    const marker = Symbol.for('spindle.error.test_marker')
    expect(hasErrorMarker({ [marker]: true }, marker)).toBe(true)
    expect(hasErrorMarker({ [marker]: 'yes' }, marker)).toBe(false)
    expect(hasErrorMarker(null, marker)).toBe(false)
  })
})

const repositoryRoot = join(import.meta.dirname, '..', '..', '..', '..')
const scannedFolders = ['packages', 'apps', 'examples', 'bench', 'release']

function sourceFiles(dir: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...sourceFiles(path))
    else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(path)
  }
  return found
}

describe('no instanceof on a Spindle error class', () => {
  const files = scannedFolders.flatMap((folder) => sourceFiles(join(repositoryRoot, folder)))
  const texts = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]))
  // Every class that extends a Spindle error, in core or in a plugin, found from SpindleError down.
  const classFiles = new Map<string, string>([['SpindleError', join(repositoryRoot, 'packages/core/src/errors/spindle-error.ts')]])
  for (let grew = true; grew;) {
    grew = false
    for (const [file, text] of texts) {
      for (const match of text.matchAll(/class (\w+) extends (\w+)/g)) {
        if (classFiles.has(match[2]!) && !classFiles.has(match[1]!)) {
          classFiles.set(match[1]!, file)
          grew = true
        }
      }
    }
  }

  it('knows the Spindle error classes of core and of the plugins', () => {
    expect([...classFiles.keys()]).toEqual(
      expect.arrayContaining(['SpindleError', 'ProviderError', 'ContextOverflowError', 'ToolSchemaError', 'WebToolError', 'McpToolError']),
    )
  })

  it('every class outside tests declares its own marker and static isInstance (plugins: describeErrorClass from @spindle/testing checks it at run time)', () => {
    const missing: string[] = []
    for (const [name, file] of classFiles) {
      if (name === 'SpindleError' || /\.test\.tsx?$/.test(file)) continue
      const text = texts.get(file)!
      if (!new RegExp(`isInstance\\(value: unknown\\): value is ${name}\\b`).test(text) || !/readonly \[\w*[mM]arker\] = true/.test(text)) {
        missing.push(`${relative(repositoryRoot, file)}: ${name}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('finds none outside the class file: `X.isInstance(error)` works across package copies, instanceof does not', () => {
    const found: string[] = []
    const pattern = new RegExp(`instanceof\\s+(${[...classFiles.keys()].join('|')})\\b`, 'g')
    for (const [file, text] of texts) {
      for (const match of text.matchAll(pattern)) {
        if (classFiles.get(match[1]!) === file || file === import.meta.filename) continue
        const line = text.slice(0, match.index).split('\n').length
        found.push(`${relative(repositoryRoot, file)}:${line}: ${match[0]} (use ${match[1]}.isInstance(value))`)
      }
    }
    expect(found).toEqual([])
  })
})
