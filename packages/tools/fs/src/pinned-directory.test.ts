// Pinned directories, step by step: the swaps a concurrent actor could make are made here between two
// steps, on real directories and symlinks, so each outcome is deterministic.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { constants } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { SpindleError } from '@spindle/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { atomicWrite } from './atomic-write.js'
import { resolveFileToolsOptions } from './file-tools-options.js'
import { detectRaceFree, pinDirectory, pinParentDirectory, type Confinement } from './pinned-directory.js'
import { walk } from './walk.js'

let base: string
let root: string
let outside: string

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'spindle-pin-'))
  root = path.join(base, 'root')
  outside = path.join(base, 'outside')
  mkdirSync(path.join(root, 'd'), { recursive: true })
  mkdirSync(outside)
  writeFileSync(path.join(root, 'd', 'secret.txt'), 'decoy inside')
  writeFileSync(path.join(root, 'file.txt'), 'a file')
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET')
})

afterEach(() => {
  rmSync(base, { recursive: true, force: true })
})

/** What a concurrent actor does between two steps: root/d becomes a symlink to `target`; the real directory moves to root/d.real. */
function swapDirectoryForLink(target = outside): void {
  renameSync(path.join(root, 'd'), path.join(root, 'd.real'))
  symlinkSync(target, path.join(root, 'd'))
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(SpindleError.isInstance(error), `expected a tool error, got ${String(error)}`).toBe(true)
  return (error as SpindleError).code
}

it('detects the race-free (/proc/self/fd) confinement on Linux', () => {
  expect(detectRaceFree(root)).toBe(process.platform === 'linux')
  expect(resolveFileToolsOptions({ root }).raceFree).toBe(process.platform === 'linux')
})

const modes = [
  { mode: 'race-free', raceFree: true },
  { mode: 'best-effort', raceFree: false },
].filter((entry) => !entry.raceFree || process.platform === 'linux')

describe.each(modes)('pinned directories ($mode)', ({ raceFree }) => {
  let confinement: Confinement
  beforeEach(() => {
    confinement = { root, raceFree }
  })

  it('refuses to pin a directory that resolves outside the root', async () => {
    symlinkSync(outside, path.join(root, 'escape'))
    expect(await codeOf(pinDirectory(confinement, path.join(root, 'escape'), 'escape'))).toBe('fs_outside_root')
  })

  it('never opens an entry through a symlink, even one pointing inside', async () => {
    symlinkSync(path.join(root, 'd', 'secret.txt'), path.join(root, 'alias.txt'))
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'out.txt'))
    const directory = await pinDirectory(confinement, root, '.')
    try {
      expect(await codeOf(directory.openFile('alias.txt', constants.O_RDONLY))).toBe('fs_invalid_path')
      expect(await codeOf(directory.openFile('out.txt', constants.O_RDONLY))).toBe('fs_invalid_path')
      symlinkSync(path.join(root, 'd'), path.join(root, 'dir-alias'))
      expect(await codeOf(directory.openDirectory('dir-alias', false))).toBe('fs_invalid_path')
      expect(await codeOf(directory.openDirectory('file.txt', true))).toBe('fs_not_a_directory')
      await expect(directory.openFile('..', constants.O_RDONLY)).rejects.toThrow(/not a single path component/)
      await expect(directory.openDirectory('d/..', false)).rejects.toThrow(/not a single path component/)
    } finally {
      await directory.close()
    }
  })

  it('creates missing parent directories one by one, inside the root', async () => {
    const directory = await pinParentDirectory(confinement, path.join(root, 'a', 'b', 'c', 'new.txt'), 'a/b/c/new.txt')
    try {
      expect(directory.real).toBe(path.join(root, 'a', 'b', 'c'))
      await atomicWrite(directory, 'new.txt', Buffer.from('made'))
    } finally {
      await directory.close()
    }
    expect(readFileSync(path.join(root, 'a', 'b', 'c', 'new.txt'), 'utf8')).toBe('made')
    expect(readdirSync(path.join(root, 'a', 'b', 'c'))).toEqual(['new.txt'])
  })

  it('refuses to create a parent through a symlink that points outside', async () => {
    symlinkSync(outside, path.join(root, 'escape'))
    // The path was checked while "escape" did not exist; the link appeared before the write: the walk
    // from the root meets a symlink where it expects a directory, and stops ("changed", not followed).
    expect(await codeOf(pinParentDirectory(confinement, path.join(root, 'escape', 'deeper', 'new.txt'), 'escape/deeper/new.txt'))).toBe('fs_invalid_path')
    expect(existsSync(path.join(outside, 'deeper'))).toBe(false)
  })

  it('does not enter a directory swapped for a symlink after it was listed', async () => {
    mkdirSync(path.join(root, 'inside-target'))
    writeFileSync(path.join(root, 'inside-target', 'twice.txt'), 'would be listed twice')
    for (const target of [outside, path.join(root, 'inside-target')]) {
      rmSync(path.join(root, 'd'), { recursive: true, force: true })
      rmSync(path.join(root, 'd.real'), { recursive: true, force: true })
      mkdirSync(path.join(root, 'd'))
      writeFileSync(path.join(root, 'd', 'secret.txt'), 'decoy inside')
      const start = await pinDirectory(confinement, root, '.')
      const seen: string[] = []
      try {
        for await (const entry of walk(confinement, start, true, [])) {
          seen.push(path.relative(root, entry.absolute))
          if (entry.dirent.name === 'd' && entry.dirent.isDirectory()) swapDirectoryForLink(target)
        }
      } finally {
        await start.close()
      }
      expect(seen).toContain('d')
      expect(seen.filter((entry) => entry.startsWith(`d${path.sep}`) || entry.startsWith('..'))).toEqual([])
    }
  })
})

describe.runIf(process.platform === 'linux')('pinned directories (race-free): a swapped path cannot redirect them', () => {
  it('keeps reading, writing and creating in the directory it pinned after its path is swapped for a symlink to outside', async () => {
    const confinement = { root, raceFree: true }
    const directory = await pinDirectory(confinement, path.join(root, 'd'), 'd')
    try {
      swapDirectoryForLink()
      const handle = await directory.openFile('secret.txt', constants.O_RDONLY)
      expect(await handle.readFile('utf8')).toBe('decoy inside')
      await handle.close()
      await atomicWrite(directory, 'new.txt', Buffer.from('stays inside'))
      const child = await directory.openDirectory('sub', true)
      await atomicWrite(child, 'deep.txt', Buffer.from('also inside'))
      await child.close()
      expect((await directory.list()).map((entry) => entry.name).sort()).toEqual(['new.txt', 'secret.txt', 'sub'])
    } finally {
      await directory.close()
    }
    expect(readFileSync(path.join(root, 'd.real', 'new.txt'), 'utf8')).toBe('stays inside')
    expect(readFileSync(path.join(root, 'd.real', 'sub', 'deep.txt'), 'utf8')).toBe('also inside')
    expect(readdirSync(outside)).toEqual(['secret.txt'])
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET')
  })
})

describe('pinned directories (best-effort): a swap is detected at the next step', () => {
  it('refuses to go on once the pinned directory was swapped for a symlink', async () => {
    const directory = await pinDirectory({ root, raceFree: false }, path.join(root, 'd'), 'd')
    swapDirectoryForLink()
    expect(await codeOf(directory.openFile('secret.txt', constants.O_RDONLY))).toBe('fs_invalid_path')
    expect(await codeOf(directory.list())).toBe('fs_invalid_path')
    expect(await codeOf(atomicWrite(directory, 'new.txt', Buffer.from('x')))).toBe('fs_invalid_path')
    expect(await codeOf(directory.openDirectory('sub', true))).toBe('fs_invalid_path')
    await directory.close()
    expect(readdirSync(outside)).toEqual(['secret.txt'])
  })
})
