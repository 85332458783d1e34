// patch_file: an exact search/replace edit; a missing or ambiguous search text is a clear error.
import { constants } from 'node:fs'
import path from 'node:path'
import { defineTool, type Tool } from '@spindle/core'
import { z } from 'zod'
import { atomicWrite } from './atomic-write.js'
import { ioError } from './confined-path.js'
import { FileToolError } from './file-tool-error.js'
import type { ResolvedFileToolsOptions } from './file-tools-options.js'
import { pinDirectory, type PinnedDirectory } from './pinned-directory.js'
import { assertWritable, assertWriteSize, resolveWritable } from './write-file.js'

/** What `patch_file` returns after replacing text in a file. */
export interface PatchFileResult {
  path: string
  replacements: number
  bytes: number
}

const patchFileInput = z.object({
  path: z.string().describe('Path of an existing file, relative to the root'),
  search: z.string().min(1).describe('Exact text to find (whitespace and indentation included); it must occur once unless replaceAll'),
  replace: z.string().describe('Text that replaces it'),
  replaceAll: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one (default false)'),
})

export function createPatchFileTool(options: ResolvedFileToolsOptions): Tool<z.infer<typeof patchFileInput>, PatchFileResult> {
  return defineTool({
    name: 'patch_file',
    description:
      'Edit a file inside the workspace root by replacing an exact piece of text. Read the file first and copy the text exactly; include enough surrounding lines to make it unique.',
    inputSchema: patchFileInput,
    idempotent: false,
    effect: 'write',
    needsApproval: options.writeNeedsApproval,
    async execute(input) {
      assertWritable(options)
      const target = await resolveWritable(options, input.path)
      if (!target.exists) throw new FileToolError('fs_not_found', `"${input.path}" does not exist; use write_file to create it`)
      // Read and rewrite inside one pinned directory, the file opened without following a symlink: a
      // file or parent swapped for a symlink since the check can neither be read nor written through.
      try {
        const directory = await pinDirectory(options, path.dirname(target.real), input.path)
        try {
          const name = path.basename(target.real)
          const patched = applyPatch(await readPatchable(options, directory, name, input.path), input)
          const content = Buffer.from(patched.text, 'utf8')
          assertWriteSize(options, input.path, content.length)
          await atomicWrite(directory, name, content)
          return { path: target.relative, replacements: patched.replacements, bytes: content.length }
        } finally {
          await directory.close()
        }
      } catch (error) {
        throw ioError(input.path, error)
      }
    },
  })
}

/** The patched text; refuses a search text that is missing, or ambiguous without `replaceAll`. */
function applyPatch(original: string, input: z.infer<typeof patchFileInput>): { text: string; replacements: number } {
  const count = countOccurrences(original, input.search)
  if (count === 0) {
    throw new FileToolError(
      'fs_patch_not_found',
      `the search text was not found in "${input.path}"; read the file again and copy the text exactly (whitespace and indentation matter)`,
    )
  }
  if (count > 1 && !input.replaceAll) {
    throw new FileToolError(
      'fs_patch_ambiguous',
      `the search text occurs ${count} times in "${input.path}"; include more surrounding lines so it matches exactly once, or set replaceAll: true`,
    )
  }
  // split/join: no `$&`-style replacement patterns are interpreted in `replace`.
  if (input.replaceAll) return { text: original.split(input.search).join(input.replace), replacements: count }
  return { text: replaceOnce(original, input.search, input.replace), replacements: 1 }
}

// fatal: a byte that is not UTF-8 would otherwise become U+FFFD and be written back; ignoreBOM: a BOM is kept.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** The file's text, opened without following a symlink; refused when it is not a regular file, too large or not UTF-8. */
async function readPatchable(options: ResolvedFileToolsOptions, directory: PinnedDirectory, name: string, shown: string): Promise<string> {
  const handle = await directory.openFile(name, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) throw new FileToolError('fs_not_a_file', `"${shown}" exists and is not a regular file; choose a file path`)
    if (stats.size > options.maxWriteBytes) {
      throw new FileToolError('fs_too_large', `"${shown}" is ${stats.size} bytes, over the ${options.maxWriteBytes}-byte write limit; it cannot be patched`)
    }
    const bytes = await handle.readFile()
    try {
      return utf8.decode(bytes)
    } catch (error) {
      throw new FileToolError(
        'fs_not_utf8',
        `"${shown}" is not valid UTF-8 text (e.g. Latin-1 or binary data), so patch_file left it unchanged; read it with read_file and replace it whole with write_file (encoding: "base64" keeps its bytes exact)`,
        { cause: error },
      )
    }
  } finally {
    await handle.close()
  }
}

function countOccurrences(text: string, search: string): number {
  let count = 0
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) count++
  return count
}

function replaceOnce(text: string, search: string, replacement: string): string {
  const index = text.indexOf(search)
  return text.slice(0, index) + replacement + text.slice(index + search.length)
}
