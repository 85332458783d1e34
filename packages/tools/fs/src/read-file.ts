// read_file: reads a file inside the root, capped at maxReadBytes per call.
import { constants } from 'node:fs'
import { defineTool, type Tool } from '@spindle/core'
import { z } from 'zod'
import { ioError, resolveConfined } from './confined-path.js'
import { FileToolError } from './file-tool-error.js'
import type { ResolvedFileToolsOptions } from './file-tools-options.js'
import { openConfinedFile } from './pinned-directory.js'

/** What `read_file` returns: the content (UTF-8 text or base64) of the range read, and the file's size. */
export interface ReadFileResult {
  path: string
  /** utf8 text, or base64 when the bytes are not text. */
  encoding: 'utf8' | 'base64'
  content: string
  /** Byte offset the content starts at. */
  offset: number
  /** Bytes returned. */
  bytes: number
  /** Size of the whole file. */
  totalBytes: number
  /** True when the file goes on past what was returned. */
  truncated: boolean
}

const readFileInput = z.object({
  path: z.string().describe('Path relative to the root, e.g. "src/index.ts"'),
  offset: z.number().int().min(0).optional().describe('Byte offset to start at (default 0)'),
  length: z.number().int().min(1).optional().describe('Most bytes to return (default and maximum: the read limit)'),
})

export function createReadFileTool(options: ResolvedFileToolsOptions): Tool<z.infer<typeof readFileInput>, ReadFileResult> {
  return defineTool({
    name: 'read_file',
    description: `Read a file inside the workspace root. Returns at most ${options.maxReadBytes} bytes per call; use offset/length to read a large file in parts.`,
    inputSchema: readFileInput,
    idempotent: true,
    effect: 'read',
    async execute(input) {
      const target = await resolveConfined(options.root, input.path)
      if (!target.exists) throw new FileToolError('fs_not_found', `"${input.path}" does not exist; use list_files to see what is there`)
      if (target.relative === '.') throw new FileToolError('fs_not_a_file', `"${input.path}" is not a regular file; use list_files for directories`)
      // Opened inside its pinned parent directory without following a symlink: a parent or the file
      // swapped for a symlink since the check cannot redirect the read (O_NONBLOCK: a FIFO does not hang).
      const handle = await openConfinedFile(options, target.real, constants.O_RDONLY | constants.O_NONBLOCK, input.path).catch((error: unknown) => {
        throw ioError(input.path, error)
      })
      try {
        const stats = await handle.stat()
        if (!stats.isFile()) throw new FileToolError('fs_not_a_file', `"${input.path}" is not a regular file; use list_files for directories`)
        const offset = Math.min(input.offset ?? 0, stats.size)
        const wanted = Math.min(input.length ?? options.maxReadBytes, options.maxReadBytes, stats.size - offset)
        const buffer = Buffer.alloc(wanted)
        let read = 0
        while (read < wanted) {
          const { bytesRead } = await handle.read(buffer, read, wanted - read, offset + read)
          if (bytesRead === 0) break
          read += bytesRead
        }
        const bytes = buffer.subarray(0, read)
        const text = looksLikeText(bytes)
        return {
          path: target.relative,
          encoding: text ? 'utf8' : 'base64',
          content: text ? bytes.toString('utf8') : bytes.toString('base64'),
          offset,
          bytes: read,
          totalBytes: stats.size,
          truncated: offset + read < stats.size,
        }
      } finally {
        await handle.close()
      }
    },
  })
}

/** Text unless it holds a NUL byte or is not valid UTF-8 (a cut multi-byte char at the end is fine). */
export function looksLikeText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true })
    return true
  } catch {
    return false
  }
}
