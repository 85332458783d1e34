import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { ToolExecutionContext } from '@spindle/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { fileToolModes } from './test-support/file-tool-modes.js'
import { tempName } from './atomic-write.js'
import type { FileTools } from './index.js'

const context = { signal: new AbortController().signal } as unknown as ToolExecutionContext

let root: string
let tools: FileTools

const modeOf = (name: string): number => statSync(path.join(root, name)).mode & 0o7777

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'spindle-fs-write-'))
})

afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

const modes = fileToolModes

describe.each(modes)('atomic writes ($mode)', ({ make }) => {
  beforeEach(() => {
    tools = make({ root, writeNeedsApproval: false })
  })

  it.skipIf(process.platform === 'win32')('keep the mode of the file they replace, whatever the umask', async () => {
    writeFileSync(path.join(root, 'id_rsa'), 'PRIVATE')
    chmodSync(path.join(root, 'id_rsa'), 0o600)
    writeFileSync(path.join(root, 'deploy.sh'), '#!/bin/sh\necho v1\n')
    chmodSync(path.join(root, 'deploy.sh'), 0o750)
    writeFileSync(path.join(root, 'shared.txt'), 'v1')
    chmodSync(path.join(root, 'shared.txt'), 0o666)
    writeFileSync(path.join(root, 'set-id'), 'v1')
    chmodSync(path.join(root, 'set-id'), 0o4755)
    await tools.patchFile.execute({ path: 'id_rsa', search: 'PRIVATE', replace: 'PRIVATE2' }, context)
    await tools.writeFile.execute({ path: 'deploy.sh', content: '#!/bin/sh\necho v2\n' }, context)
    // fchmod, not open's mode: a umask stricter than the file's mode does not narrow it.
    const previous = process.umask(0o077)
    try {
      await tools.writeFile.execute({ path: 'shared.txt', content: 'v2' }, context)
    } finally {
      process.umask(previous)
    }
    await tools.writeFile.execute({ path: 'set-id', content: 'v2' }, context)
    expect(modeOf('id_rsa').toString(8)).toBe('600')
    expect(modeOf('deploy.sh').toString(8)).toBe('750')
    expect(modeOf('shared.txt').toString(8)).toBe('666')
    expect(modeOf('set-id').toString(8)).toBe('755') // permission bits only: set-id is not carried onto new content
    expect(readFileSync(path.join(root, 'id_rsa'), 'utf8')).toBe('PRIVATE2')
    expect(readFileSync(path.join(root, 'deploy.sh'), 'utf8')).toContain('v2')
  })

  it.skipIf(process.platform === 'win32')('give a new file 0666 less the umask', async () => {
    const previous = process.umask(0o027)
    try {
      await tools.writeFile.execute({ path: 'new.txt', content: 'hi' }, context)
    } finally {
      process.umask(previous)
    }
    expect(modeOf('new.txt').toString(8)).toBe('640')
    await tools.writeFile.execute({ path: 'other.txt', content: 'hi' }, context)
    expect(modeOf('other.txt')).toBe(0o666 & ~previous)
  })

  it('write file names up to NAME_MAX (255 bytes, multi-byte characters included), leaving no temp file', async () => {
    const names = ['a'.repeat(230), 'b'.repeat(255), `${'é'.repeat(127)}x`, `${'😀'.repeat(63)}abc`]
    for (const name of names) {
      expect(Buffer.byteLength(name)).toBeGreaterThan(229)
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255)
      writeFileSync(path.join(root, name), 'old') // a legal name
      await tools.writeFile.execute({ path: name, content: 'new' }, context)
      expect(readFileSync(path.join(root, name), 'utf8')).toBe('new')
      await tools.patchFile.execute({ path: name, search: 'new', replace: 'patched' }, context)
      expect(readFileSync(path.join(root, name), 'utf8')).toBe('patched')
    }
    expect(readdirSync(root).sort()).toEqual([...names].sort())
  })
})

describe('tempName', () => {
  it('is hidden, unique and at most 255 UTF-8 bytes, never cutting a character', () => {
    for (const name of ['short.txt', 'a'.repeat(255), 'é'.repeat(127), '😀'.repeat(63), `a${'😀'.repeat(63)}`]) {
      const first = tempName(name)
      expect(first.startsWith('.')).toBe(true)
      expect(first).not.toBe(tempName(name))
      expect(Buffer.byteLength(first)).toBeLessThanOrEqual(255)
      expect(first).not.toContain('\uFFFD')
      expect(Buffer.from(first, 'utf8').toString('utf8')).toBe(first) // whole characters only
    }
    expect(tempName('short.txt')).toMatch(/^\.short\.txt\.[0-9a-f]{12}\.spindle-tmp$/)
  })
})
