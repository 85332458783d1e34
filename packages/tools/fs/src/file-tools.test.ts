import { execFileSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync, lstatSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseToolInput, SpindleError, type Tool, type ToolExecutionContext } from '@spindle/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { fileToolModes } from './test-support/file-tool-modes.js'
import { fileToolSet, FileToolError, type FileTools } from './index.js'

const context = {
  runId: 'run',
  sessionId: 'session',
  step: 0,
  callId: 'call',
  toolName: 'tool',
  idempotencyKey: 'run:0:call',
  signal: new AbortController().signal,
  runtime: undefined,
} as unknown as ToolExecutionContext

/** Validates like the kernel does, then executes. */
async function call<T>(tool: Tool<any, T>, args: unknown): Promise<T> {
  const parsed = parseToolInput(tool, args)
  if (!parsed.success) throw new Error(`invalid arguments: ${parsed.error}`)
  return tool.execute(parsed.value, context)
}

async function refusal(promise: Promise<unknown>): Promise<FileToolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error, 'the call should have been refused').toBeDefined()
  expect(SpindleError.isInstance(error)).toBe(true)
  expect((error as Error).message).toMatch(/^\[spindle\/tools-fs\] /)
  return error as FileToolError
}

let base: string
let root: string
let outside: string
let tools: FileTools

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'spindle-fs-'))
  root = path.join(base, 'root')
  outside = path.join(base, 'outside')
  mkdirSync(path.join(root, 'src'), { recursive: true })
  mkdirSync(outside)
  writeFileSync(path.join(root, 'README.md'), '# Hello\nworld\n')
  writeFileSync(path.join(root, 'src', 'index.ts'), 'export const answer = 42\nexport const other = 1\n')
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET')
})

afterEach(() => {
  rmSync(base, { recursive: true, force: true })
})

const modes = fileToolModes

describe.each(modes)('fileTools ($mode)', ({ make }) => {
  beforeEach(() => {
    tools = make({ root })
  })

  describe('normal use', () => {
    it('exposes the model-facing names and safety metadata', () => {
      expect(tools.readFile.name).toBe('read_file')
      expect(tools.writeFile.name).toBe('write_file')
      expect(tools.listFiles.name).toBe('list_files')
      expect(tools.searchFiles.name).toBe('search_files')
      expect(tools.patchFile.name).toBe('patch_file')
      for (const tool of [tools.readFile, tools.listFiles, tools.searchFiles]) {
        expect(tool.effect).toBe('read')
        expect(tool.idempotent).toBe(true)
        expect(tool.needsApproval).toBeFalsy()
      }
      for (const tool of [tools.writeFile, tools.patchFile]) {
        expect(tool.effect).toBe('write')
        expect(tool.idempotent).toBe(false)
        expect(tool.needsApproval).toBe(true)
      }
      const noApproval = make({ root, writeNeedsApproval: false })
      expect(noApproval.writeFile.needsApproval).toBe(false)
      expect(noApproval.patchFile.needsApproval).toBe(false)
    })

    it('reads a file, with byte ranges', async () => {
      const whole = await call(tools.readFile, { path: 'README.md' })
      expect(whole).toMatchObject({ path: 'README.md', encoding: 'utf8', content: '# Hello\nworld\n', totalBytes: 14, truncated: false })
      const part = await call(tools.readFile, { path: './src/../README.md', offset: 2, length: 5 })
      expect(part).toMatchObject({ content: 'Hello', offset: 2, bytes: 5, truncated: true })
    })

    it('returns binary content as base64', async () => {
      writeFileSync(path.join(root, 'image.bin'), Buffer.from([0, 1, 2, 255]))
      const result = await call(tools.readFile, { path: 'image.bin' })
      expect(result.encoding).toBe('base64')
      expect(Buffer.from(result.content, 'base64')).toEqual(Buffer.from([0, 1, 2, 255]))
    })

    it('writes new files (creating parents) and replaces existing ones', async () => {
      expect(await call(tools.writeFile, { path: 'notes/today.md', content: 'hi' })).toEqual({ path: 'notes/today.md', bytes: 2, created: true })
      expect(readFileSync(path.join(root, 'notes', 'today.md'), 'utf8')).toBe('hi')
      expect(await call(tools.writeFile, { path: 'notes/today.md', content: 'again' })).toMatchObject({ created: false, bytes: 5 })
      expect(readFileSync(path.join(root, 'notes', 'today.md'), 'utf8')).toBe('again')
      const error = await refusal(call(tools.writeFile, { path: 'notes/today.md', content: 'x', overwrite: false }))
      expect(error.message).toContain('already exists')
    })

    it('lists a directory, flat and recursive', async () => {
      const flat = await call(tools.listFiles, {})
      expect(flat.entries).toEqual([
        { path: 'README.md', type: 'file', size: 14 },
        { path: 'src', type: 'directory' },
      ])
      const deep = await call(tools.listFiles, { path: '.', recursive: true })
      expect(deep.entries.map((entry) => entry.path)).toEqual(['README.md', 'src', 'src/index.ts'])
      const error = await refusal(call(tools.listFiles, { path: 'README.md' }))
      expect(error.code).toBe('fs_not_a_directory')
    })

    it('caps listings', async () => {
      for (let index = 0; index < 5; index++) writeFileSync(path.join(root, `f${index}.txt`), '')
      const small = make({ root, maxListEntries: 3 })
      const result = await call(small.listFiles, {})
      expect(result.entries).toHaveLength(3)
      expect(result.truncated).toBe(true)
    })

    it('searches literally, case-insensitively by default, with a file pattern', async () => {
      const result = await call(tools.searchFiles, { query: 'EXPORT CONST' })
      expect(result.matches).toEqual([
        { path: 'src/index.ts', line: 1, text: 'export const answer = 42' },
        { path: 'src/index.ts', line: 2, text: 'export const other = 1' },
      ])
      expect((await call(tools.searchFiles, { query: 'EXPORT', caseSensitive: true })).matches).toHaveLength(0)
      expect((await call(tools.searchFiles, { query: 'hello', filePattern: '*.ts' })).matches).toHaveLength(0)
      expect((await call(tools.searchFiles, { query: 'hello', filePattern: 'READ??.*' })).matches).toHaveLength(1)
      // Regex metacharacters are literal text, never a pattern.
      expect((await call(tools.searchFiles, { query: '.*' })).matches).toHaveLength(0)
    })

    it('patches exactly once, refuses missing and ambiguous search text, or replaces all', async () => {
      expect(await call(tools.patchFile, { path: 'src/index.ts', search: 'answer = 42', replace: 'answer = 43' })).toMatchObject({ replacements: 1 })
      expect(readFileSync(path.join(root, 'src', 'index.ts'), 'utf8')).toContain('answer = 43')

      const missing = await refusal(call(tools.patchFile, { path: 'src/index.ts', search: 'answer = 42', replace: 'x' }))
      expect(missing.code).toBe('fs_patch_not_found')
      expect(missing.message).toContain('was not found')

      const ambiguous = await refusal(call(tools.patchFile, { path: 'src/index.ts', search: 'export const', replace: 'const' }))
      expect(ambiguous.code).toBe('fs_patch_ambiguous')
      expect(ambiguous.message).toContain('occurs 2 times')
      expect(readFileSync(path.join(root, 'src', 'index.ts'), 'utf8')).toBe('export const answer = 43\nexport const other = 1\n')

      expect(await call(tools.patchFile, { path: 'src/index.ts', search: 'export const', replace: 'const $&', replaceAll: true })).toMatchObject({
        replacements: 2,
      })
      expect(readFileSync(path.join(root, 'src', 'index.ts'), 'utf8')).toBe('const $& answer = 43\nconst $& other = 1\n')

      const absent = await refusal(call(tools.patchFile, { path: 'nope.ts', search: 'a', replace: 'b' }))
      expect(absent.code).toBe('fs_not_found')
    })

    it('allowWrite: false refuses writes and leaves the write tools out of the tool set', async () => {
      const readOnly = make({ root, allowWrite: false })
      expect((await refusal(call(readOnly.writeFile, { path: 'a.txt', content: 'x' }))).code).toBe('fs_write_disabled')
      expect((await refusal(call(readOnly.patchFile, { path: 'README.md', search: 'Hello', replace: 'x' }))).code).toBe('fs_write_disabled')
      expect(existsSync(path.join(root, 'a.txt'))).toBe(false)
      expect(Object.keys(fileToolSet({ root, allowWrite: false })).sort()).toEqual(['list_files', 'read_file', 'search_files'])
      expect(Object.keys(fileToolSet({ root })).sort()).toEqual(['list_files', 'patch_file', 'read_file', 'search_files', 'write_file'])
    })

    it('refuses a missing root at construction', () => {
      expect(() => make({ root: path.join(base, 'missing') })).toThrow(/does not exist/)
    })
  })

  describe('hostile input', () => {
    // The hostile-input list: every case must be refused with a clear [spindle/tools-fs] error and touch nothing outside.
    const escapes: Array<[string, string]> = [
      ['absolute path', '/etc/passwd'],
      ['absolute path into the sibling', '__OUTSIDE__/secret.txt'],
      ['parent escape', '../outside/secret.txt'],
      ['deep parent escape', 'src/../../outside/secret.txt'],
      ['prefix trick (root-evil beside root)', '../root-evil/secret.txt'],
      ['bare ..', '..'],
      ['NUL byte', 'README.md\0.png'],
      ['Windows drive path', 'C:\\Windows\\win.ini'],
      ['UNC path', '\\\\server\\share\\file'],
    ]

    for (const [label, raw] of escapes) {
      it(`refuses ${label} for every tool`, async () => {
        mkdirSync(path.join(base, 'root-evil'))
        writeFileSync(path.join(base, 'root-evil', 'secret.txt'), 'EVIL')
        const requested = raw.replace('__OUTSIDE__', outside)
        const attempts = [
          call(tools.readFile, { path: requested }),
          call(tools.writeFile, { path: requested, content: 'pwned' }),
          call(tools.listFiles, { path: requested }),
          call(tools.searchFiles, { query: 'SECRET', path: requested }),
          call(tools.patchFile, { path: requested, search: 'SECRET', replace: 'pwned' }),
        ]
        for (const attempt of attempts) {
          const error = await refusal(attempt)
          expect(['fs_invalid_path', 'fs_outside_root']).toContain(error.code)
        }
        expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET')
        expect(readFileSync(path.join(base, 'root-evil', 'secret.txt'), 'utf8')).toBe('EVIL')
      })
    }

    it('refuses an empty path', async () => {
      expect((await refusal(call(tools.readFile, { path: '' }))).code).toBe('fs_invalid_path')
    })

    it('refuses a symlinked file that points outside', async () => {
      symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'))
      expect((await refusal(call(tools.readFile, { path: 'link.txt' }))).code).toBe('fs_outside_root')
      expect((await refusal(call(tools.writeFile, { path: 'link.txt', content: 'pwned' }))).code).toBe('fs_outside_root')
      expect((await refusal(call(tools.patchFile, { path: 'link.txt', search: 'TOP', replace: 'pwned' }))).code).toBe('fs_outside_root')
      expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET')
    })

    it('refuses a symlinked parent directory that points outside, for existing and new files', async () => {
      symlinkSync(outside, path.join(root, 'escape'), 'dir')
      expect((await refusal(call(tools.readFile, { path: 'escape/secret.txt' }))).code).toBe('fs_outside_root')
      expect((await refusal(call(tools.writeFile, { path: 'escape/new.txt', content: 'pwned' }))).code).toBe('fs_outside_root')
      expect((await refusal(call(tools.writeFile, { path: 'escape/deeper/new.txt', content: 'pwned' }))).code).toBe('fs_outside_root')
      expect((await refusal(call(tools.listFiles, { path: 'escape' }))).code).toBe('fs_outside_root')
      expect(existsSync(path.join(outside, 'new.txt'))).toBe(false)
      expect(existsSync(path.join(outside, 'deeper'))).toBe(false)
    })

    it('refuses a dangling symlink that points outside (a write would create the file there)', async () => {
      symlinkSync(path.join(outside, 'created-by-attacker.txt'), path.join(root, 'dangling.txt'))
      expect((await refusal(call(tools.writeFile, { path: 'dangling.txt', content: 'pwned' }))).code).toBe('fs_outside_root')
      expect((await refusal(call(tools.readFile, { path: 'dangling.txt' }))).code).toBe('fs_outside_root')
      expect(existsSync(path.join(outside, 'created-by-attacker.txt'))).toBe(false)
      // A dangling parent directory link, too.
      symlinkSync(path.join(outside, 'no-such-dir'), path.join(root, 'dangling-dir'))
      expect((await refusal(call(tools.writeFile, { path: 'dangling-dir/x.txt', content: 'pwned' }))).code).toBe('fs_outside_root')
      expect(existsSync(path.join(outside, 'no-such-dir'))).toBe(false)
    })

    it('refuses a chain of symlinks that ends outside, and a symlink loop', async () => {
      symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'hop2'))
      symlinkSync(path.join(root, 'hop2'), path.join(root, 'hop1'))
      expect((await refusal(call(tools.readFile, { path: 'hop1' }))).code).toBe('fs_outside_root')
      symlinkSync(path.join(root, 'loop-b'), path.join(root, 'loop-a'))
      symlinkSync(path.join(root, 'loop-a'), path.join(root, 'loop-b'))
      expect((await refusal(call(tools.readFile, { path: 'loop-a' }))).code).toBe('fs_invalid_path')
    })

    it('follows symlinks that stay inside the root, and never replaces the link target outside', async () => {
      symlinkSync(path.join(root, 'README.md'), path.join(root, 'alias.md'))
      expect((await call(tools.readFile, { path: 'alias.md' })).path).toBe('README.md')
      await call(tools.writeFile, { path: 'alias.md', content: 'through the link' })
      expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toBe('through the link')
      expect(lstatSync(path.join(root, 'alias.md')).isSymbolicLink()).toBe(true)
    })

    it('writes a new file through a symlink to a directory inside the root', async () => {
      symlinkSync(path.join(root, 'src'), path.join(root, 'link'))
      expect(await call(tools.writeFile, { path: 'link/new.txt', content: 'through the link' })).toEqual({ path: 'src/new.txt', bytes: 16, created: true })
      expect(await call(tools.writeFile, { path: 'link/deeper/new.txt', content: 'x' })).toMatchObject({ path: 'src/deeper/new.txt', created: true })
      expect(readFileSync(path.join(root, 'src', 'new.txt'), 'utf8')).toBe('through the link')
      expect(readFileSync(path.join(root, 'src', 'deeper', 'new.txt'), 'utf8')).toBe('x')
      expect(lstatSync(path.join(root, 'link')).isSymbolicLink()).toBe(true)
      // A relative link, a chain of links, and a patch through the link work the same way.
      symlinkSync('src', path.join(root, 'relative-link'))
      symlinkSync(path.join(root, 'link'), path.join(root, 'chain'))
      expect((await call(tools.writeFile, { path: 'relative-link/a.txt', content: 'a' })).path).toBe('src/a.txt')
      expect((await call(tools.writeFile, { path: 'chain/b.txt', content: 'b' })).path).toBe('src/b.txt')
      expect(await call(tools.patchFile, { path: 'link/new.txt', search: 'link', replace: 'symlink' })).toMatchObject({ path: 'src/new.txt' })
      expect(readFileSync(path.join(root, 'src', 'new.txt'), 'utf8')).toBe('through the symlink')
    })

    it('still refuses a new file through a directory link that points outside, dangles, or names a file', async () => {
      symlinkSync(outside, path.join(root, 'escape'))
      symlinkSync(path.join(root, 'escape'), path.join(root, 'chain-out'))
      symlinkSync(path.join(root, 'no-such-dir'), path.join(root, 'dangling-inside'))
      symlinkSync(path.join(root, 'README.md'), path.join(root, 'file-link'))
      expect((await refusal(call(tools.writeFile, { path: 'escape/new.txt', content: 'pwned' }))).code).toBe('fs_outside_root')
      expect((await refusal(call(tools.writeFile, { path: 'chain-out/new.txt', content: 'pwned' }))).code).toBe('fs_outside_root')
      const dangling = await refusal(call(tools.writeFile, { path: 'dangling-inside/new.txt', content: 'x' }))
      expect(dangling.code).toBe('fs_invalid_path')
      expect(dangling.message).toContain('dangling symbolic link')
      expect((await refusal(call(tools.writeFile, { path: 'file-link/new.txt', content: 'x' }))).code).toBe('fs_not_a_directory')
      expect((await refusal(call(tools.writeFile, { path: 'README.md/new.txt', content: 'x' }))).code).toBe('fs_not_a_directory')
      expect(readdirSync(outside)).toEqual(['secret.txt'])
      expect(existsSync(path.join(root, 'no-such-dir'))).toBe(false)
    })

    it('does not follow symlinks while listing or searching', async () => {
      symlinkSync(outside, path.join(root, 'escape'), 'dir')
      symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.txt'))
      const listed = await call(tools.listFiles, { recursive: true })
      expect(listed.entries.map((entry) => entry.path)).not.toContain('escape/secret.txt')
      expect(listed.entries.find((entry) => entry.path === 'escape')?.type).toBe('symlink')
      const found = await call(tools.searchFiles, { query: 'TOP SECRET' })
      expect(found.matches).toEqual([])
    })

    it('enforces the read and write size caps', async () => {
      const small = make({ root, maxReadBytes: 8, maxWriteBytes: 10 })
      const read = await call(small.readFile, { path: 'README.md', length: 1000 })
      expect(read.bytes).toBe(8)
      expect(read.truncated).toBe(true)
      const tooBig = await refusal(call(small.writeFile, { path: 'big.txt', content: 'x'.repeat(11) }))
      expect(tooBig.code).toBe('fs_too_large')
      expect(tooBig.message).toContain('10-byte write limit')
      expect(existsSync(path.join(root, 'big.txt'))).toBe(false)
      const patchTooBig = await refusal(call(small.patchFile, { path: 'README.md', search: 'Hello', replace: 'Hello there' }))
      expect(patchTooBig.code).toBe('fs_too_large')
      // Oversized files are skipped by search rather than read whole.
      expect((await call(small.searchFiles, { query: 'export' })).matches).toEqual([])
    })

    it('does not hang on a named pipe (FIFO) inside the root', async () => {
      execFileSync('mkfifo', [path.join(root, 'pipe')])
      expect((await refusal(call(tools.readFile, { path: 'pipe' }))).code).toBe('fs_not_a_file')
      expect((await call(tools.searchFiles, { query: 'anything' })).matches).toEqual([])
      expect((await refusal(call(tools.writeFile, { path: 'pipe', content: 'x' }))).code).toBe('fs_not_a_file')
    })

    it('refuses to write over a directory or the root', async () => {
      expect((await refusal(call(tools.writeFile, { path: 'src', content: 'x' }))).code).toBe('fs_not_a_file')
      expect((await refusal(call(tools.writeFile, { path: '.', content: 'x' }))).code).toBe('fs_invalid_path')
    })

    it('an I/O error names the path the model gave, never where the root really is on the host', async () => {
      for (const [tool, args] of [
        [tools.readFile, { path: 'x'.repeat(300) }],
        [tools.writeFile, { path: `src/${'y'.repeat(300)}`, content: 'z' }],
        [tools.listFiles, { path: 'a/'.repeat(2100) }],
      ] as const) {
        const error = await refusal(call(tool as Tool<any, unknown>, args))
        expect(error.code).toBe('fs_io')
        expect(error.message).toMatch(/ENAMETOOLONG/)
        expect(error.message).not.toContain(base)
        expect(error.message).not.toContain('/proc/self/fd')
      }
    })

    it('a hostile glob pattern does not hang the search', async () => {
      writeFileSync(path.join(root, `${'a'.repeat(200)}.txt`), 'needle')
      const started = Date.now()
      const result = await call(tools.searchFiles, { query: 'needle', filePattern: `${'*a'.repeat(60)}*b` })
      expect(result.matches).toEqual([])
      expect(Date.now() - started).toBeLessThan(2000)
    })
  })
})
