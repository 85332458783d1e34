import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { SpindleError, type ToolExecutionContext } from '@spindle/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { fileToolModes } from './test-support/file-tool-modes.js'
import { FileToolError, type FileTools } from './index.js'

const context = { signal: new AbortController().signal } as unknown as ToolExecutionContext

let root: string
let tools: FileTools

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'spindle-fs-patch-'))
})

afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

const modes = fileToolModes

describe.each(modes)('patch_file and encodings ($mode)', ({ make }) => {
  beforeEach(() => {
    tools = make({ root, writeNeedsApproval: false })
  })

  it('refuses a file that is not valid UTF-8 and leaves it byte-for-byte unchanged', async () => {
    const files = {
      'legacy.txt': Buffer.concat([Buffer.from('version=1\n'), Buffer.from('caf\xe9 na\xefve\n', 'latin1')]),
      'cut.txt': Buffer.concat([Buffer.from('version=1\n'), Buffer.from('€').subarray(0, 2)]), // a cut multi-byte char
      'blob.bin': Buffer.concat([Buffer.from('version=1\n'), Buffer.from([0xff, 0xfe, 0x00, 0x80])]),
    }
    for (const [name, bytes] of Object.entries(files)) {
      writeFileSync(path.join(root, name), bytes)
      const error = await Promise.resolve(tools.patchFile.execute({ path: name, search: 'version=1', replace: 'version=2' }, context)).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(FileToolError.isInstance(error) && SpindleError.isInstance(error)).toBe(true)
      expect((error as FileToolError).code).toBe('fs_not_utf8')
      expect((error as Error).message).toMatch(/^\[spindle\/tools-fs\] .*not valid UTF-8.*left it unchanged.*write_file/)
      expect(readFileSync(path.join(root, name)).equals(bytes)).toBe(true)
    }
  })

  it('keeps a byte order mark and multi-byte text around the edit', async () => {
    const original = Buffer.from('\uFEFFversion=1\ncafé ☕ 😀\n', 'utf8')
    writeFileSync(path.join(root, 'bom.txt'), original)
    await tools.patchFile.execute({ path: 'bom.txt', search: 'version=1', replace: 'version=2' }, context)
    expect(readFileSync(path.join(root, 'bom.txt')).equals(Buffer.from('\uFEFFversion=2\ncafé ☕ 😀\n', 'utf8'))).toBe(true)
  })
})
