// search_files: a literal (never regex: no ReDoS from model input) text search under a directory of the root.
import { constants } from 'node:fs'
import { defineTool, type Tool } from '@spindle/core'
import { z } from 'zod'
import { ioError, resolveConfined, toRootRelative } from './confined-path.js'
import { FileToolError } from './file-tool-error.js'
import type { ResolvedFileToolsOptions } from './file-tools-options.js'
import { pinDirectory, type PinnedDirectory } from './pinned-directory.js'
import { looksLikeText } from './read-file.js'
import { defaultExcludes, walk } from './walk.js'

/** One match of `search_files`: the file, the line number and the line. */
export interface SearchMatch {
  path: string
  line: number
  text: string
}

/** What `search_files` returns: the matches and whether the search was cut at its limits. */
export interface SearchFilesResult {
  matches: SearchMatch[]
  filesSearched: number
  truncated: boolean
}

const searchFilesInput = z.object({
  query: z.string().min(1).max(1000).describe('Literal text to look for (not a regular expression)'),
  path: z.string().optional().describe('Directory to search, relative to the root (default ".")'),
  caseSensitive: z.boolean().optional().describe('Default false'),
  filePattern: z.string().max(200).optional().describe('Only file names matching this glob, e.g. "*.ts" (* and ? supported)'),
})

const maxLineChars = 300

export function createSearchFilesTool(options: ResolvedFileToolsOptions): Tool<z.infer<typeof searchFilesInput>, SearchFilesResult> {
  return defineTool({
    name: 'search_files',
    description: `Search the text files under a directory of the workspace root for a literal string; returns up to ${options.maxSearchResults} matching lines.`,
    inputSchema: searchFilesInput,
    idempotent: true,
    effect: 'read',
    async execute(input) {
      const requested = input.path ?? '.'
      const directory = await resolveConfined(options.root, requested)
      if (!directory.exists) throw new FileToolError('fs_not_found', `"${requested}" does not exist`)
      const caseSensitive = input.caseSensitive ?? false
      const needle = caseSensitive ? input.query : input.query.toLowerCase()
      const pattern = input.filePattern
      const matches: SearchMatch[] = []
      let filesSearched = 0
      let truncated = false
      const pinned = await pinDirectory(options, directory.real, requested).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException)?.code === 'ENOTDIR') return undefined // a file: nothing to search under it
        throw ioError(requested, error)
      })
      if (!pinned) return { matches, filesSearched, truncated }
      try {
        outer: for await (const entry of walk(options, pinned, true, defaultExcludes)) {
          if (!entry.dirent.isFile()) continue // symlinks are never followed
          if (pattern && !matchGlob(pattern, entry.dirent.name)) continue
          if (filesSearched >= options.maxSearchFiles) {
            truncated = true
            break
          }
          filesSearched++
          const content = await readSmallText(entry.directory, entry.dirent.name, options.maxReadBytes)
          if (content === undefined) continue
          const haystack = caseSensitive ? content : content.toLowerCase()
          if (!haystack.includes(needle)) continue
          const lines = content.split('\n')
          for (let index = 0; index < lines.length; index++) {
            const line = caseSensitive ? lines[index] : lines[index].toLowerCase()
            if (!line.includes(needle)) continue
            if (matches.length >= options.maxSearchResults) {
              truncated = true
              break outer
            }
            const text = lines[index].replace(/\r$/, '')
            matches.push({
              path: toRootRelative(options.root, entry.absolute),
              line: index + 1,
              text: text.length > maxLineChars ? `${text.slice(0, maxLineChars)}…` : text,
            })
          }
        }
      } finally {
        await pinned.close()
      }
      return { matches, filesSearched, truncated }
    },
  })
}

/** The file's text, or undefined when it is too large, binary or unreadable (opened without following a symlink). */
async function readSmallText(directory: PinnedDirectory, name: string, maxBytes: number): Promise<string | undefined> {
  const handle = await directory.openFile(name, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined)
  if (!handle) return undefined
  try {
    const stats = await handle.stat()
    if (!stats.isFile() || stats.size > maxBytes) return undefined
    const bytes = await handle.readFile()
    return looksLikeText(bytes) ? bytes.toString('utf8') : undefined
  } finally {
    await handle.close()
  }
}

/** `*` and `?` only, case-insensitive; a greedy two-pointer match (no regex, no catastrophic backtracking). */
export function matchGlob(pattern: string, name: string): boolean {
  const p = pattern.toLowerCase()
  const n = name.toLowerCase()
  let pi = 0
  let ni = 0
  let star = -1
  let mark = 0
  while (ni < n.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === n[ni])) {
      pi++
      ni++
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++
      mark = ni
    } else if (star !== -1) {
      pi = star + 1
      ni = ++mark
    } else return false
  }
  while (pi < p.length && p[pi] === '*') pi++
  return pi === p.length
}
