// list_files: lists a directory inside the root (optionally recursive; symlinks are listed, never entered).
import { defineTool, type Tool } from '@spindle/core'
import { z } from 'zod'
import { ioError, resolveConfined, toRootRelative } from './confined-path.js'
import { FileToolError } from './file-tool-error.js'
import type { ResolvedFileToolsOptions } from './file-tools-options.js'
import { pinDirectory } from './pinned-directory.js'
import { defaultExcludes, entryType, walk } from './walk.js'

/** One entry of `list_files`: its path relative to the root, its type and size. */
export interface ListedFile {
  path: string
  type: 'file' | 'directory' | 'symlink' | 'other'
  size?: number
}

/** What `list_files` returns: the entries found and whether the listing was cut at `maxListEntries`. */
export interface ListFilesResult {
  path: string
  entries: ListedFile[]
  truncated: boolean
}

const listFilesInput = z.object({
  path: z.string().optional().describe('Directory relative to the root (default ".")'),
  recursive: z.boolean().optional().describe('Walk subdirectories too (default false; skips .git and node_modules)'),
})

export function createListFilesTool(options: ResolvedFileToolsOptions): Tool<z.infer<typeof listFilesInput>, ListFilesResult> {
  return defineTool({
    name: 'list_files',
    description: `List the files in a directory of the workspace root (at most ${options.maxListEntries} entries).`,
    inputSchema: listFilesInput,
    idempotent: true,
    effect: 'read',
    async execute(input) {
      const requested = input.path ?? '.'
      const directory = await resolveConfined(options.root, requested)
      if (!directory.exists) throw new FileToolError('fs_not_found', `"${requested}" does not exist`)
      const pinned = await pinDirectory(options, directory.real, requested).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException)?.code === 'ENOTDIR')
          throw new FileToolError('fs_not_a_directory', `"${requested}" is a file, not a directory; use read_file`)
        throw ioError(requested, error)
      })
      const entries: ListedFile[] = []
      let truncated = false
      try {
        for await (const entry of walk(options, pinned, input.recursive ?? false, defaultExcludes)) {
          if (entries.length >= options.maxListEntries) {
            truncated = true
            break
          }
          const type = entryType(entry.dirent)
          const listed: ListedFile = { path: toRootRelative(options.root, entry.absolute), type }
          if (type === 'file') listed.size = (await entry.directory.statEntry(entry.dirent.name).catch(() => undefined))?.size
          entries.push(listed)
        }
      } finally {
        await pinned.close()
      }
      return { path: directory.relative, entries, truncated }
    },
  })
}
