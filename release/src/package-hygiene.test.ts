// What a stranger gets from the registry, checked on the tarballs `pnpm publish` would upload: a LICENSE and a
// README in each, manifests without workspace:/link: ranges, peer ranges that accept the released core, zod 4 as a
// peer where a package imports zod, and publint and arethetypeswrong (ESM-only profile) reporting nothing.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { publint } from 'publint'
import { formatMessage } from 'publint/utils'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { satisfiesCaret } from './caret-range.js'
import { publishedPackages, readPacked, repositoryRoot, type PackedPackage } from './published-packages.js'

const scratch = mkdtempSync(join(tmpdir(), 'spindle-hygiene-'))
const packages = publishedPackages()
const packed = new Map<string, PackedPackage>(readPacked(inject('packedDir')).map((pkg) => [pkg.name, pkg]))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const core = packages.find((pkg) => pkg.name === '@spindle/core')!

describe('every published package', () => {
  it('is found: core, testing, the providers, stores, tools, memory, compaction and otel', () => {
    expect(packages.map((pkg) => pkg.name)).toEqual(
      expect.arrayContaining(['@spindle/core', '@spindle/testing', '@spindle/openai', '@spindle/store-sqlite', '@spindle/tools-fs']),
    )
    expect(packages.length).toBeGreaterThanOrEqual(13)
  })

  for (const pkg of packages) {
    describe(pkg.name, () => {
      it('ships LICENSE (the MIT text of the repository), README.md and its built entry', () => {
        const tarball = packed.get(pkg.name)!
        expect(tarball.files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts']))
        expect(readFileSync(join(pkg.dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(repositoryRoot, 'LICENSE'), 'utf8'))
        expect(tarball.packedManifest.license).toBe('MIT')
        expect(tarball.files.some((file) => file.endsWith('.test.ts'))).toBe(false)
      })

      it('has no workspace: or link: range left in the packed manifest, and peers that accept the released core', () => {
        const manifest = tarball(pkg.name).packedManifest
        const text = JSON.stringify(manifest)
        expect(text).not.toMatch(/"(workspace|link|file):/)
        for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
          const range = manifest[field]?.['@spindle/core']
          if (range !== undefined) expect(satisfiesCaret(core.version, range), `${field} "@spindle/core": "${range}" must accept ${core.version}`).toBe(true)
        }
      })

      it('takes zod 4 as a peer (not a dependency) when its code imports zod', () => {
        const manifest = tarball(pkg.name).packedManifest
        const importsZod = builtFiles(join(pkg.dir, 'dist')).some((file) => /from ['"]zod(\/[a-z0-9]+)?['"]/.test(readFileSync(file, 'utf8')))
        expect(manifest.dependencies?.zod).toBeUndefined()
        if (importsZod) expect(manifest.peerDependencies?.zod).toMatch(/^\^4\./)
      })

      it('is clean for publint (suggestions included)', async () => {
        // publint reads the unpacked tarball: exactly the files the registry will serve.
        const unpacked = join(scratch, 'unpacked', pkg.name.replace('/', '__'))
        mkdirSync(unpacked, { recursive: true })
        execFileSync('tar', ['-xzf', tarball(pkg.name).tarball, '-C', unpacked])
        const { messages, pkg: manifest } = await publint({ pkgDir: join(unpacked, 'package'), level: 'suggestion', strict: true, pack: false })
        expect(messages.map((message) => formatMessage(message, manifest))).toEqual([])
      })

      it('is clean for arethetypeswrong (ESM-only profile: the packages are ES modules, require() needs Node 20.19+)', () => {
        const attw = join(repositoryRoot, 'release', 'node_modules', '.bin', 'attw')
        let output = ''
        let failed = false
        try {
          output = execFileSync(attw, [tarball(pkg.name).tarball, '--profile', 'esm-only', '--format', 'ascii'], { encoding: 'utf8' })
        } catch (error) {
          failed = true
          output = String((error as { stdout?: string }).stdout ?? '') + String((error as { stderr?: string }).stderr ?? '')
        }
        expect(failed ? output : '', output).toBe('')
      })
    })
  }
})

function tarball(name: string): PackedPackage {
  const found = packed.get(name)
  if (!found) throw new Error(`${name} was not packed`)
  return found
}

function builtFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => join(dir, file))
}
