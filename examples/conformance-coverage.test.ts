// Repo rule: every store and provider package (and the custom-* example plugins) runs its conformance suite from
// @spindle/testing. A new package under packages/stores/ or packages/providers/ without one fails here.
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const repo = join(import.meta.dirname, '..')
const suiteCall = { stores: /\bdescribeStores\(/, providers: /\bdescribeLanguageModel\(/ } as const

/** Package folders (those with a package.json) directly under `parent`, matching `filter`. */
function packagesUnder(parent: string, filter: (name: string) => boolean = () => true): string[] {
  return readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && filter(entry.name) && readdirSync(join(parent, entry.name)).includes('package.json'))
    .map((entry) => join(parent, entry.name))
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.test\.tsx?$/.test(file) && !file.split(/[\\/]/).some((part) => part === 'node_modules' || part === 'dist'))
    .map((file) => join(dir, file))
}

/** The packages whose test files never call their kind's conformance suite. */
export function packagesWithoutConformance(packages: Array<{ dir: string; kind: keyof typeof suiteCall }>): string[] {
  return packages.filter(({ dir, kind }) => !testFiles(dir).some((file) => suiteCall[kind].test(readFileSync(file, 'utf8')))).map(({ dir }) => dir)
}

function plugins(): Array<{ dir: string; kind: keyof typeof suiteCall }> {
  const stores = [...packagesUnder(join(repo, 'packages/stores')), ...packagesUnder(join(repo, 'examples'), (name) => name === 'custom-store')]
  const providers = [...packagesUnder(join(repo, 'packages/providers')), ...packagesUnder(join(repo, 'examples'), (name) => name === 'custom-provider')]
  return [...stores.map((dir) => ({ dir, kind: 'stores' as const })), ...providers.map((dir) => ({ dir, kind: 'providers' as const }))]
}

describe('conformance coverage', () => {
  it('every store and provider package runs its conformance suite', () => {
    const found = plugins().map(({ dir }) => relative(repo, dir))
    // The scan must see the known plugins, so it can never pass by finding nothing.
    for (const known of [
      'packages/stores/sqlite',
      'packages/stores/postgres',
      'packages/providers/openai',
      'packages/providers/anthropic',
      'examples/custom-store',
      'examples/custom-provider',
    ]) {
      expect(found).toContain(known)
    }
    const missing = packagesWithoutConformance(plugins()).map((dir) => relative(repo, dir))
    expect(missing, `these packages must call describeStores(…) / describeLanguageModel(…) from @spindle/testing in a *.test.ts file`).toEqual([])
  })

  it('every store package that offers a StoreBatch runs the batch conformance suite', () => {
    const sources = (dir: string) =>
      readdirSync(join(dir, 'src'), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
        .map((file) => readFileSync(join(dir, 'src', file), 'utf8'))
    const batching = plugins().filter(({ dir, kind }) => kind === 'stores' && sources(dir).some((text) => /implements StoreBatch\b/.test(text)))
    // The SQLite and PostgreSQL stores batch: the scan must find them.
    expect(batching.map(({ dir }) => relative(repo, dir))).toEqual(expect.arrayContaining(['packages/stores/sqlite', 'packages/stores/postgres']))
    const missing = batching
      .filter(({ dir }) => !testFiles(dir).some((file) => /\bdescribeStoreBatch\(/.test(readFileSync(file, 'utf8'))))
      .map(({ dir }) => relative(repo, dir))
    expect(missing, 'these store packages implement StoreBatch and must call describeStoreBatch(…) from @spindle/testing').toEqual([])
  })

  it('flags a plugin package whose tests do not call the suite', () => {
    const root = mkdtempSync(join(tmpdir(), 'spindle-coverage-'))
    try {
      for (const [name, test] of [
        ['covered', "describeStores('x', { create })"],
        ['uncovered', "it('works', () => {})"],
      ]) {
        mkdirSync(join(root, name, 'src'), { recursive: true })
        writeFileSync(join(root, name, 'package.json'), '{}')
        writeFileSync(join(root, name, 'src', 'a.test.ts'), test)
      }
      mkdirSync(join(root, 'provider', 'src'), { recursive: true })
      writeFileSync(join(root, 'provider', 'package.json'), '{}')
      writeFileSync(join(root, 'provider', 'src', 'a.test.ts'), "describeStores('wrong suite for a provider', {})")
      const packages = packagesUnder(root).map((dir) => ({ dir, kind: dir.endsWith('provider') ? ('providers' as const) : ('stores' as const) }))
      expect(
        packagesWithoutConformance(packages)
          .map((dir) => relative(root, dir))
          .sort(),
      ).toEqual(['provider', 'uncovered'])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
