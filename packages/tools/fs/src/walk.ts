// A bounded walk of a directory tree that never follows symbolic links.
import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import path from 'node:path'

export interface WalkEntry {
  absolute: string
  dirent: Dirent
  depth: number
}

/** Names skipped by recursive walks. */
export const defaultExcludes: readonly string[] = ['.git', 'node_modules']

/** Yields entries breadth-first; directories are entered only when `recursive`, symlinks never. */
export async function* walk(directory: string, recursive: boolean, excludes: readonly string[]): AsyncGenerator<WalkEntry> {
  const queue: Array<{ directory: string; depth: number }> = [{ directory, depth: 0 }]
  while (queue.length > 0) {
    const next = queue.shift()!
    let entries: Dirent[]
    try {
      entries = await readdir(next.directory, { withFileTypes: true })
    } catch {
      continue // unreadable directory: skip it rather than fail the whole listing
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const dirent of entries) {
      const absolute = path.join(next.directory, dirent.name)
      yield { absolute, dirent, depth: next.depth }
      if (recursive && dirent.isDirectory() && !excludes.includes(dirent.name)) queue.push({ directory: absolute, depth: next.depth + 1 })
    }
  }
}

export function entryType(dirent: Dirent): 'file' | 'directory' | 'symlink' | 'other' {
  if (dirent.isSymbolicLink()) return 'symlink'
  if (dirent.isDirectory()) return 'directory'
  if (dirent.isFile()) return 'file'
  return 'other'
}
