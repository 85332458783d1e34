// A bounded walk of a directory tree that never follows symbolic links; each directory is pinned while
// its entries are used, so a directory swapped for a symlink mid-walk is neither listed nor entered.
import type { Dirent } from 'node:fs'
import path from 'node:path'
import { pinDirectory, type Confinement, type PinnedDirectory } from './pinned-directory.js'

export interface WalkEntry {
  /** Real path of the entry (its pinned directory's real path joined with its name). */
  absolute: string
  dirent: Dirent
  depth: number
  /** The pinned directory holding the entry: open or stat the entry through it, by `dirent.name`. */
  directory: PinnedDirectory
}

/** Names skipped by recursive walks. */
export const defaultExcludes: readonly string[] = ['.git', 'node_modules']

/**
 * Yields entries breadth-first from `start` (pinned by the caller, who closes it); directories are
 * entered only when `recursive`, symlinks never.
 */
export async function* walk(confinement: Confinement, start: PinnedDirectory, recursive: boolean, excludes: readonly string[]): AsyncGenerator<WalkEntry> {
  const queue: Array<{ real: string; depth: number }> = [{ real: start.real, depth: 0 }]
  let first = true
  while (queue.length > 0) {
    const next = queue.shift()!
    const isStart = first
    first = false
    let directory: PinnedDirectory | undefined
    let entries: Dirent[]
    try {
      // `exact`: the directory must still be where it was listed, not reached through a symlink swapped in.
      directory = isStart ? start : await pinDirectory(confinement, next.real, next.real, true)
      entries = await directory.list()
    } catch {
      if (directory && directory !== start) await directory.close()
      continue // unreadable or changed directory: skip it rather than fail the whole listing
    }
    try {
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      for (const dirent of entries) {
        const absolute = path.join(directory.real, dirent.name)
        yield { absolute, dirent, depth: next.depth, directory }
        if (recursive && dirent.isDirectory() && !excludes.includes(dirent.name)) queue.push({ real: absolute, depth: next.depth + 1 })
      }
    } finally {
      if (directory !== start) await directory.close()
    }
  }
}

export function entryType(dirent: Dirent): 'file' | 'directory' | 'symlink' | 'other' {
  if (dirent.isSymbolicLink()) return 'symlink'
  if (dirent.isDirectory()) return 'directory'
  if (dirent.isFile()) return 'file'
  return 'other'
}
