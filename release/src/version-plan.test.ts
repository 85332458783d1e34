// The next `changeset version`, rehearsed on a scratch copy of the manifests and pending changesets: a 0.x package
// must never be planned to 1.0.0 because a peer (@spindle/core) takes a minor (breaking in 0.x) bump, and every
// published peer range on a workspace package must accept that package's next version. Changesets alone plans a
// major bump for every peer dependent whose range the new core leaves; the workspace patches
// `@changesets/assemble-release-plan` (patches/) so that a 0.x dependent takes a minor bump instead.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { satisfiesCaret } from './caret-range.js'
import { publishedPackages, repositoryRoot } from './published-packages.js'

const changesetBin = join(repositoryRoot, 'node_modules', '.bin', 'changeset')
let scratch = ''

/** Copies what `changeset version` reads: the workspace file, every package.json and the pending changesets. */
function copyVersioningInputs(destination: string): void {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: repositoryRoot, encoding: 'utf8' })
    .split('\n')
    .filter((file) => /(^|\/)package\.json$/.test(file) || file.startsWith('.changeset/') || file === 'pnpm-workspace.yaml')
    .filter((file) => !file.includes('node_modules') && existsSync(join(repositoryRoot, file)))
  for (const file of files) cpSync(join(repositoryRoot, file), join(destination, file), { recursive: true })
  execFileSync('git', ['init', '-q', '.'], { cwd: destination })
}

function manifestAt(dir: string): Record<string, any> {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'spindle-version-plan-'))
  copyVersioningInputs(scratch)
  execFileSync(changesetBin, ['version'], { cwd: scratch, encoding: 'utf8', stdio: 'pipe' })
})

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true })
})

describe('the next changeset version', () => {
  it('keeps every 0.x package below 1.0.0', () => {
    const jumped: string[] = []
    for (const pkg of publishedPackages()) {
      const next = manifestAt(join(scratch, pkg.dir.slice(repositoryRoot.length + 1))).version as string
      if (pkg.version.startsWith('0.') && !next.startsWith('0.')) jumped.push(`${pkg.name} ${pkg.version} → ${next}`)
    }
    expect(jumped).toEqual([])
  })

  it('leaves every published peer range on a workspace package accepting its next version', () => {
    const nextVersions = new Map<string, string>()
    const folders = publishedPackages().map((pkg) => join(scratch, pkg.dir.slice(repositoryRoot.length + 1)))
    for (const folder of folders) nextVersions.set(manifestAt(folder).name, manifestAt(folder).version)
    const outOfRange: string[] = []
    for (const folder of folders) {
      const manifest = manifestAt(folder)
      for (const [name, range] of Object.entries<string>(manifest.peerDependencies ?? {})) {
        const next = nextVersions.get(name)
        if (next && !satisfiesCaret(next, range)) outOfRange.push(`${manifest.name} peers ${name} ${range}, next is ${next}`)
      }
    }
    expect(folders.length).toBeGreaterThan(5)
    expect(outOfRange).toEqual([])
  })

  it('writes a changelog entry for every pending changeset it consumed', () => {
    const pending = readdirSync(join(repositoryRoot, '.changeset')).filter((file) => file.endsWith('.md') && file !== 'README.md')
    const left = readdirSync(join(scratch, '.changeset')).filter((file) => file.endsWith('.md') && file !== 'README.md')
    expect(left).toEqual([])
    if (pending.length > 0) expect(existsSync(join(scratch, dirname('packages/core/package.json'), 'CHANGELOG.md'))).toBe(true)
  })
})
