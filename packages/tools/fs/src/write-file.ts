// write_file: creates or replaces a file inside the root (non-idempotent, approval-gated by default).
import { lstat } from 'node:fs/promises'
import path from 'node:path'
import { defineTool, type Tool } from '@spindle/core'
import { z } from 'zod'
import { atomicWrite } from './atomic-write.js'
import { ioError, resolveConfined, type ConfinedPath } from './confined-path.js'
import { FileToolError } from './file-tool-error.js'
import type { ResolvedFileToolsOptions } from './file-tools-options.js'
import { pinParentDirectory } from './pinned-directory.js'

/** What `write_file` returns: the path, the bytes written and whether the file was created. */
export interface WriteFileResult {
  path: string
  bytes: number
  created: boolean
}

const writeFileInput = z.object({
  path: z.string().describe('Path relative to the root; missing parent directories are created'),
  content: z.string().describe('The whole new content of the file'),
  encoding: z.enum(['utf8', 'base64']).optional().describe('How `content` is encoded (default utf8)'),
  overwrite: z.boolean().optional().describe('Replace an existing file (default true)'),
})

export function createWriteFileTool(options: ResolvedFileToolsOptions): Tool<z.infer<typeof writeFileInput>, WriteFileResult> {
  return defineTool({
    name: 'write_file',
    description: `Create or replace a file inside the workspace root (at most ${options.maxWriteBytes} bytes). Prefer patch_file for small edits.`,
    inputSchema: writeFileInput,
    idempotent: false,
    effect: 'write',
    needsApproval: options.writeNeedsApproval,
    async execute(input) {
      assertWritable(options)
      const content = input.encoding === 'base64' ? Buffer.from(input.content, 'base64') : Buffer.from(input.content, 'utf8')
      assertWriteSize(options, input.path, content.length)
      const target = await resolveWritable(options, input.path)
      if (target.exists && input.overwrite === false) {
        throw new FileToolError('fs_invalid_path', `"${input.path}" already exists and overwrite is false; pick another path or set overwrite`)
      }
      try {
        const directory = await pinParentDirectory(options, target.real, input.path)
        try {
          await atomicWrite(directory, path.basename(target.real), content)
        } finally {
          await directory.close()
        }
      } catch (error) {
        throw ioError(input.path, error)
      }
      return { path: target.relative, bytes: content.length, created: !target.exists }
    },
  })
}

export function assertWritable(options: ResolvedFileToolsOptions): void {
  if (!options.allowWrite) throw new FileToolError('fs_write_disabled', 'writing is disabled for this workspace (allowWrite: false); only reading is possible')
}

export function assertWriteSize(options: ResolvedFileToolsOptions, shown: string, bytes: number): void {
  if (bytes > options.maxWriteBytes) {
    throw new FileToolError('fs_too_large', `writing ${bytes} bytes to "${shown}" exceeds the ${options.maxWriteBytes}-byte write limit; write a smaller file`)
  }
}

/** A confined path that is a regular file or nothing yet; never the root or a directory. */
export async function resolveWritable(options: ResolvedFileToolsOptions, requested: string): Promise<ConfinedPath> {
  const target = await resolveConfined(options.root, requested)
  if (target.relative === '.') throw new FileToolError('fs_invalid_path', 'cannot write to the root directory itself; name a file inside it')
  if (target.exists) {
    const stats = await lstat(target.real).catch((error: unknown) => {
      throw ioError(requested, error)
    })
    if (!stats.isFile()) throw new FileToolError('fs_not_a_file', `"${requested}" exists and is not a regular file; choose a file path`)
  }
  return target
}
