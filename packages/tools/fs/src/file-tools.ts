// fileTools(): the five sandboxed file tools on one root directory.
import type { Tool } from '@spindle/core'
import { resolveFileToolsOptions, type FileToolsOptions, type ResolvedFileToolsOptions } from './file-tools-options.js'
import { createListFilesTool, type ListFilesResult } from './list-files.js'
import { createPatchFileTool, type PatchFileResult } from './patch-file.js'
import { createReadFileTool, type ReadFileResult } from './read-file.js'
import { createSearchFilesTool, type SearchFilesResult } from './search-files.js'
import { createWriteFileTool, type WriteFileResult } from './write-file.js'

/** The five file tools of `fileTools()`, confined to one root: `readFile`, `writeFile`, `listFiles`, `searchFiles`, `patchFile`. */
export interface FileTools {
  readFile: Tool<{ path: string; offset?: number; length?: number }, ReadFileResult>
  writeFile: Tool<{ path: string; content: string; encoding?: 'utf8' | 'base64'; overwrite?: boolean }, WriteFileResult>
  listFiles: Tool<{ path?: string; recursive?: boolean }, ListFilesResult>
  searchFiles: Tool<{ query: string; path?: string; caseSensitive?: boolean; filePattern?: string }, SearchFilesResult>
  patchFile: Tool<{ path: string; search: string; replace: string; replaceAll?: boolean }, PatchFileResult>
}

/**
 * File tools confined to `root`: every path's real location (symlinks followed) must lie inside it.
 * The model sees them as `read_file`, `write_file`, `list_files`, `search_files`, `patch_file`.
 *
 * @example
 * const files = fileTools({ root: './workspace' })
 * const agent = { instructions: '…', model: 'openai:gpt-5.4', tools: [files.readFile, files.patchFile] }
 */
export function fileTools(options: FileToolsOptions): FileTools {
  return createFileTools(resolveFileToolsOptions(options))
}

/** The tools on already-resolved options (tests use it to run the best-effort confinement on Linux too). */
export function createFileTools(resolved: ResolvedFileToolsOptions): FileTools {
  return {
    readFile: createReadFileTool(resolved),
    writeFile: createWriteFileTool(resolved),
    listFiles: createListFilesTool(resolved),
    searchFiles: createSearchFilesTool(resolved),
    patchFile: createPatchFileTool(resolved),
  }
}

/**
 * The file tools as a `ToolSet` keyed by the names the model sees; without the write tools when `allowWrite` is false.
 *
 * @example
 * runtime.run({ input: 'Summarize README.md', agent: { model, tools: fileToolSet({ root }) } })
 */
export function fileToolSet(options: FileToolsOptions): Record<string, Tool> {
  const tools = fileTools(options)
  const set: Record<string, Tool> = {
    read_file: tools.readFile,
    list_files: tools.listFiles,
    search_files: tools.searchFiles,
  }
  if (options.allowWrite !== false) {
    set.write_file = tools.writeFile
    set.patch_file = tools.patchFile
  }
  return set
}
