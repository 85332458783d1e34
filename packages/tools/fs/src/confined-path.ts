// Resolves a model-supplied path to a REAL path that lies inside the root: symlinks are
// followed (for a new file, from its deepest existing ancestor) and the result is checked
// with `path.relative`, never with a string prefix.
import { lstat, readlink, realpath } from 'node:fs/promises'
import path from 'node:path'
import { FileToolError } from './file-tool-error.js'

/** A path resolved inside the root: its real absolute location, its path relative to the root, and whether it exists. */
export interface ConfinedPath {
  /** The real absolute path (inside the root). */
  real: string
  /** The path relative to the root, with `/` separators (`.` for the root itself). */
  relative: string
  /** False when nothing exists there yet (a file about to be written). */
  exists: boolean
}

/** True when `candidate` is `root` itself or lies below it. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate)
  if (relative === '') return true
  if (path.isAbsolute(relative)) return false
  return relative !== '..' && !relative.startsWith(`..${path.sep}`)
}

export function toRootRelative(root: string, real: string): string {
  const relative = path.relative(root, real)
  return relative === '' ? '.' : relative.split(path.sep).join('/')
}

/** Lexical checks: a non-empty relative string, no NUL byte, no escape through `..`. */
export function checkPathSyntax(root: string, requested: unknown): string {
  if (typeof requested !== 'string' || requested.length === 0) {
    throw new FileToolError('fs_invalid_path', 'the path must be a non-empty string relative to the root, e.g. "src/index.ts"')
  }
  if (requested.includes('\0')) throw new FileToolError('fs_invalid_path', 'the path contains a NUL byte; pass a plain relative path')
  if (path.isAbsolute(requested) || /^[a-zA-Z]:[\\/]/.test(requested) || requested.startsWith('\\\\')) {
    throw new FileToolError('fs_invalid_path', `absolute paths are refused ("${requested}"); pass a path relative to the root, e.g. "docs/readme.md"`)
  }
  const lexical = path.resolve(root, requested)
  if (!isInside(root, lexical)) {
    throw new FileToolError('fs_outside_root', `"${requested}" points outside the root directory; only paths inside the root are allowed`)
  }
  return lexical
}

/**
 * Resolves `requested` under `root` (itself a real path) and refuses anything whose real location
 * is outside the root: `..` escapes, absolute paths, NUL bytes, symlinks (file, parent directory,
 * or dangling) that point out. This is a check of the path as it is now; the tools then act through
 * pinned directories (`pinned-directory.ts`) so a concurrent swap cannot redirect them afterwards.
 */
export async function resolveConfined(root: string, requested: unknown): Promise<ConfinedPath> {
  const lexical = checkPathSyntax(root, requested)
  const shown = String(requested)
  const refuseOutside = (): never => {
    throw outsideError(shown)
  }
  try {
    const real = await realpath(lexical)
    if (!isInside(root, real)) refuseOutside()
    return { real, relative: toRootRelative(root, real), exists: true }
  } catch (error) {
    if (FileToolError.isInstance(error)) throw error
    if (!isMissing(error)) throw ioError(shown, error)
  }
  // Nothing real there: find the deepest ancestor that exists and resolve that.
  const missing: string[] = []
  let current = lexical
  for (;;) {
    const stats = await lstat(current).catch((error: unknown) => {
      if (isMissing(error)) return undefined
      throw ioError(shown, error)
    })
    if (stats?.isSymbolicLink()) {
      // A link that resolves (e.g. `link -> sub/` on the way to a new file) is the ancestor, checked below.
      const resolves = await realpath(current).then(
        () => true,
        (error: unknown) => {
          if (isMissing(error)) return false
          throw ioError(shown, error)
        },
      )
      if (resolves) break
      // A dangling link: refuse whatever it points at, unless it stays inside (a write would follow it).
      const linked = await readlink(current).catch((error: unknown) => {
        // EINVAL: no longer a link (it was just swapped); anything else is a plain I/O error.
        throw (error as NodeJS.ErrnoException)?.code === 'EINVAL' ? changedError(shown, error) : ioError(shown, error)
      })
      if (!isInside(root, path.resolve(path.dirname(current), linked))) refuseOutside()
      throw new FileToolError('fs_invalid_path', `"${shown}" goes through a dangling symbolic link; remove or fix the link first`)
    }
    if (stats) break
    missing.unshift(path.basename(current))
    const parent = path.dirname(current)
    if (parent === current) break
    current = parent
  }
  const realAncestor = await realpath(current).catch((error: unknown) => {
    throw ioError(shown, error)
  })
  if (!isInside(root, realAncestor)) refuseOutside()
  const real = path.join(realAncestor, ...missing)
  if (!isInside(root, real)) refuseOutside()
  return { real, relative: toRootRelative(root, real), exists: false }
}

export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** Translates a Node file-system error into a `FileToolError` (one that already is passes through). */
export function ioError(shown: string, error: unknown): FileToolError {
  if (FileToolError.isInstance(error)) return error as FileToolError
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ELOOP') return new FileToolError('fs_invalid_path', `"${shown}" goes through a symbolic link loop`, { cause: error })
  if (code === 'EACCES' || code === 'EPERM') return new FileToolError('fs_io', `permission denied for "${shown}"`, { cause: error })
  if (code === 'EISDIR') return new FileToolError('fs_not_a_file', `"${shown}" is a directory, not a file`, { cause: error })
  if (isMissing(error)) return new FileToolError('fs_not_found', `"${shown}" does not exist; use list_files to see what is there`, { cause: error })
  return new FileToolError('fs_io', `could not access "${shown}": ${withoutHostPath((error as Error)?.message ?? String(error))}`, { cause: error })
}

/**
 * A Node file-system message without the absolute path it ends with (`ENAMETOOLONG: name too long, open
 * '/srv/workspace/…'`): the model sees the path it gave, not where the root really is on the host.
 */
function withoutHostPath(message: string): string {
  return message.replace(/,\s*\w+\s+'[^]*$/, '').replace(/'\/[^']*'/g, "'…'")
}

export function outsideError(shown: string): FileToolError {
  return new FileToolError('fs_outside_root', `"${shown}" resolves (through a symbolic link) outside the root directory; access refused`)
}

/** A path that was checked, then changed (a part of it became a symlink) before it was used. */
export function changedError(shown: string, cause?: unknown): FileToolError {
  return new FileToolError(
    'fs_invalid_path',
    `"${shown}" changed while it was being used (a part of it was replaced, e.g. by a symbolic link); access refused — check it with list_files and try again`,
    { cause },
  )
}
