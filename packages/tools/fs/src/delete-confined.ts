// Deleting one file inside a root, with the file tools' confinement: checked, then removed through its pinned parent.
import { realpath } from 'node:fs/promises'
import path from 'node:path'
import { changedError, ioError, isMissing, resolveConfined } from './confined-path.js'
import { FileToolError } from './file-tool-error.js'
import { detectRaceFree, pinDirectory } from './pinned-directory.js'

/** What `deleteConfined()` did: the path and whether something was deleted. */
export interface DeleteConfinedResult {
  deleted: boolean
  /** The path relative to the root, `/`-separated. */
  path: string
}

/**
 * Deletes the file `requested` (relative to `root`) when it lies inside the root; `deleted: false` when there is
 * none. Like the file tools (on Linux, race-free): the parent directory is pinned after the check and the entry is
 * unlinked through it, so a directory swapped for a symlink meanwhile cannot send the delete outside the root, and a
 * file swapped for a symlink loses the link, never what it points to. Directories are refused.
 *
 * @example
 * await deleteConfined('./workspace', 'drafts/old.md') // { deleted: true, path: 'drafts/old.md' }
 */
export async function deleteConfined(root: string, requested: unknown): Promise<DeleteConfinedResult> {
  const realRoot = await realpath(root)
  const target = await resolveConfined(realRoot, requested)
  if (!target.exists) return { deleted: false, path: target.relative }
  const shown = String(requested)
  if (target.real === realRoot) throw new FileToolError('fs_not_a_file', `"${shown}" is the root directory; only files can be deleted`)
  try {
    const directory = await pinDirectory({ root: realRoot, raceFree: detectRaceFree(realRoot) }, path.dirname(target.real), shown)
    try {
      const name = path.basename(target.real)
      if ((await directory.statEntry(name)).isDirectory()) throw new FileToolError('fs_not_a_file', `"${shown}" is a directory; only files can be deleted`)
      await directory.unlinkEntry(name)
    } finally {
      await directory.close()
    }
  } catch (error) {
    if (FileToolError.isInstance(error)) throw error
    // Gone since the check (moved or swapped meanwhile): nothing was deleted; the caller may try again.
    throw isMissing(error) ? changedError(shown, error) : ioError(shown, error)
  }
  return { deleted: true, path: target.relative }
}
