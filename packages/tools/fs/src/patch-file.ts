// patch_file: an exact search/replace edit; a missing or ambiguous search text is a clear error.
import { readFile, stat } from 'node:fs/promises'
import { defineTool, type Tool } from '@spindle/core'
import { z } from 'zod'
import { atomicWrite } from './atomic-write.js'
import { ioError } from './confined-path.js'
import { FileToolError } from './file-tool-error.js'
import type { ResolvedFileToolsOptions } from './file-tools-options.js'
import { assertWritable, assertWriteSize, resolveWritable } from './write-file.js'

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
    description: 'Edit a file inside the workspace root by replacing an exact piece of text. Read the file first and copy the text exactly; include enough surrounding lines to make it unique.',
    inputSchema: patchFileInput,
    idempotent: false,
    effect: 'write',
    needsApproval: options.writeNeedsApproval,
    async execute(input) {
      assertWritable(options)
      const target = await resolveWritable(options, input.path)
      if (!target.exists) throw new FileToolError('fs_not_found', `"${input.path}" does not exist; use write_file to create it`)
      const size = (await stat(target.real)).size
      if (size > options.maxWriteBytes) {
        throw new FileToolError('fs_too_large', `"${input.path}" is ${size} bytes, over the ${options.maxWriteBytes}-byte write limit; it cannot be patched`)
      }
      const original = await readFile(target.real, 'utf8').catch((error: unknown) => {
        throw ioError(input.path, error)
      })
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
      const updated = input.replaceAll ? original.split(input.search).join(input.replace) : replaceOnce(original, input.search, input.replace)
      const content = Buffer.from(updated, 'utf8')
      assertWriteSize(options, input.path, content.length)
      await atomicWrite(target.real, content).catch((error: unknown) => {
        throw ioError(input.path, error)
      })
      return { path: target.relative, replacements: input.replaceAll ? count : 1, bytes: content.length }
    },
  })
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
