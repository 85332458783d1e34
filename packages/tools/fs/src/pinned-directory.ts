// Pins a directory by an open descriptor so a tool acts on the directory it checked, not on whatever its
// path names a moment later: a parent swapped for a symlink cannot redirect a read, a write or a walk.
import { closeSync, constants, openSync, readlinkSync, type Dirent, type Stats } from 'node:fs'
import { lstat, mkdir, open, readdir, readlink, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { changedError, isInside, isMissing, outsideError, toRootRelative } from './confined-path.js'
import { FileToolError } from './file-tool-error.js'

/** Where the tools are confined, and how strictly. */
export interface Confinement {
  /** The root's real path. */
  root: string
  /**
   * True on Linux: an entry of a pinned directory is named `/proc/self/fd/<fd>/<name>`, which the kernel
   * resolves against the open directory itself (like `openat`), so no path is ever re-resolved.
   * False elsewhere: paths are re-checked after each step (best effort, a narrow race remains).
   */
  raceFree: boolean
}

/** A directory inside the root, held open; every method names an entry of this very directory. */
export interface PinnedDirectory {
  /** Where the directory really was when it was pinned (inside the root). */
  readonly real: string
  /** Its entries (with types, unsorted). */
  list(): Promise<Dirent[]>
  /** `lstat` of the entry `name`. */
  statEntry(name: string): Promise<Stats>
  /** Opens the entry `name` without following a symlink, and refuses it unless it lies inside the root. */
  openFile(name: string, flags: number, mode?: number): Promise<FileHandle>
  /** Pins the subdirectory `name`, never through a symlink; creates it first when `create`. */
  openDirectory(name: string, create: boolean): Promise<PinnedDirectory>
  /** Renames the entry `from` to `to` inside this directory (replacing `to`, never following it). */
  rename(from: string, to: string): Promise<void>
  /** Removes the entry `name`; a failure is ignored (used for clean-up). */
  remove(name: string): Promise<void>
  /** Unlinks the entry `name` (a symlink itself, never what it points to); a failure is thrown. */
  unlinkEntry(name: string): Promise<void>
  close(): Promise<void>
}

const procFd = '/proc/self/fd'
const directoryFlags = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0)
const noFollow = constants.O_NOFOLLOW ?? 0

/** True when `/proc/self/fd` names open directories by what they are (Linux with /proc mounted). */
export function detectRaceFree(root: string): boolean {
  if (process.platform !== 'linux') return false
  let descriptor: number | undefined
  try {
    descriptor = openSync(root, directoryFlags)
    return readlinkSync(`${procFd}/${descriptor}`) === root
  } catch {
    return false
  } finally {
    if (descriptor !== undefined) closeSync(descriptor)
  }
}

/**
 * Pins the directory at `directory` (symlinks on the way are followed) and refuses it unless where it
 * really is lies inside the root. With `exact`, it must really be at `directory` (walks use this: a
 * directory swapped for a symlink since it was listed is then not entered).
 */
export async function pinDirectory(confinement: Confinement, directory: string, shown: string, exact = false): Promise<PinnedDirectory> {
  if (!confinement.raceFree) return PathPinnedDirectory.pin(confinement, directory, shown, exact)
  const handle = await open(directory, directoryFlags)
  try {
    const real = await readlink(`${procFd}/${handle.fd}`)
    if (exact && real !== directory) throw changedError(shown)
    if (!isInside(confinement.root, real)) throw outsideError(shown)
    return new DescriptorPinnedDirectory(confinement, real, handle, shown)
  } catch (error) {
    await handle.close().catch(() => {})
    throw error
  }
}

/** Pins the directory that holds `target` (a real path inside the root), creating missing parents one by one. */
export async function pinParentDirectory(confinement: Confinement, target: string, shown: string): Promise<PinnedDirectory> {
  const parent = path.dirname(target)
  try {
    return await pinDirectory(confinement, parent, shown)
  } catch (error) {
    if (!isMissing(error)) throw error
  }
  // Each missing directory is made inside the pinned one above it, then pinned itself: nothing is re-resolved.
  let directory = await pinDirectory(confinement, confinement.root, shown)
  for (const name of path.relative(confinement.root, parent).split(path.sep).filter(Boolean)) {
    const current = directory
    try {
      directory = await current.openDirectory(name, true)
    } finally {
      await current.close()
    }
  }
  return directory
}

/** Opens the file at `target` (a real path inside the root) through its pinned parent directory. */
export async function openConfinedFile(confinement: Confinement, target: string, flags: number, shown: string): Promise<FileHandle> {
  const directory = await pinDirectory(confinement, path.dirname(target), shown)
  try {
    return await directory.openFile(path.basename(target), flags)
  } finally {
    await directory.close()
  }
}

/** Linux: entries are reached through `/proc/self/fd/<fd>/<name>`, resolved by the kernel against the open directory. */
class DescriptorPinnedDirectory implements PinnedDirectory {
  constructor(
    private readonly confinement: Confinement,
    readonly real: string,
    private readonly handle: FileHandle,
    private readonly shown: string,
  ) {}

  private entry(name: string): string {
    return `${procFd}/${this.handle.fd}/${checkEntryName(name)}`
  }

  list(): Promise<Dirent[]> {
    return readdir(`${procFd}/${this.handle.fd}`, { withFileTypes: true })
  }

  statEntry(name: string): Promise<Stats> {
    return lstat(this.entry(name))
  }

  async openFile(name: string, flags: number, mode?: number): Promise<FileHandle> {
    const handle = await open(this.entry(name), flags | noFollow, mode).catch((error: unknown) => {
      throw (error as NodeJS.ErrnoException)?.code === 'ELOOP' ? changedError(this.shown, error) : error
    })
    // Already confined by construction; checking where the descriptor really points costs one readlink.
    const real = await readlink(`${procFd}/${handle.fd}`).catch(() => undefined)
    if (real === undefined || !isInside(this.confinement.root, real)) {
      await handle.close().catch(() => {})
      throw outsideError(this.shown)
    }
    return handle
  }

  async openDirectory(name: string, create: boolean): Promise<PinnedDirectory> {
    const entry = this.entry(name)
    if (create) await mkdir(entry).catch(ignoreExists)
    const handle = await open(entry, directoryFlags | noFollow).catch(async (error: unknown) => {
      throw await notADirectoryError(this.confinement, error, entry, path.join(this.real, name), this.shown)
    })
    try {
      const real = await readlink(`${procFd}/${handle.fd}`)
      if (!isInside(this.confinement.root, real)) throw outsideError(this.shown)
      return new DescriptorPinnedDirectory(this.confinement, real, handle, this.shown)
    } catch (error) {
      await handle.close().catch(() => {})
      throw error
    }
  }

  rename(from: string, to: string): Promise<void> {
    return rename(this.entry(from), this.entry(to))
  }

  async remove(name: string): Promise<void> {
    await unlink(this.entry(name)).catch(() => {})
  }

  unlinkEntry(name: string): Promise<void> {
    return unlink(this.entry(name))
  }

  close(): Promise<void> {
    return this.handle.close()
  }
}

/**
 * Elsewhere (no /proc): a best-effort stand-in that re-checks the directory's real path and identity
 * (device and inode) before each step and checks each opened file the same way. A concurrent swap can
 * still win the narrow window between a check and the step that follows it.
 */
class PathPinnedDirectory implements PinnedDirectory {
  static async pin(confinement: Confinement, directory: string, shown: string, exact: boolean): Promise<PinnedDirectory> {
    const real = await realpath(directory)
    if (exact && real !== directory) throw changedError(shown)
    if (!isInside(confinement.root, real)) throw outsideError(shown)
    const stats = await stat(real)
    if (!stats.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, open '${directory}'`), { code: 'ENOTDIR' })
    return new PathPinnedDirectory(confinement, real, stats, shown)
  }

  private constructor(
    private readonly confinement: Confinement,
    readonly real: string,
    private readonly identity: Stats,
    private readonly shown: string,
  ) {}

  private entry(name: string): string {
    return path.join(this.real, checkEntryName(name))
  }

  /** Refuses to go on when the directory is no longer where, and what, it was when pinned. */
  private async recheck(): Promise<void> {
    const real = await realpath(this.real).catch(() => undefined)
    const stats = real === this.real ? await stat(real).catch(() => undefined) : undefined
    if (!stats || !sameFile(stats, this.identity)) throw changedError(this.shown)
  }

  async list(): Promise<Dirent[]> {
    await this.recheck()
    return readdir(this.real, { withFileTypes: true })
  }

  async statEntry(name: string): Promise<Stats> {
    await this.recheck()
    return lstat(this.entry(name))
  }

  async openFile(name: string, flags: number, mode?: number): Promise<FileHandle> {
    await this.recheck()
    const entry = this.entry(name)
    const handle = await open(entry, flags | noFollow, mode).catch((error: unknown) => {
      throw (error as NodeJS.ErrnoException)?.code === 'ELOOP' ? changedError(this.shown, error) : error
    })
    try {
      const [opened, real] = await Promise.all([handle.stat(), realpath(entry)])
      if (!isInside(this.confinement.root, real) || !sameFile(await stat(real), opened)) throw outsideError(this.shown)
      return handle
    } catch (error) {
      await handle.close().catch(() => {})
      throw error
    }
  }

  async openDirectory(name: string, create: boolean): Promise<PinnedDirectory> {
    await this.recheck()
    const entry = this.entry(name)
    if (create) await mkdir(entry).catch(ignoreExists)
    const stats = await lstat(entry)
    if (!stats.isDirectory()) {
      const error = Object.assign(new Error(`ENOTDIR: not a directory, open '${entry}'`), { code: 'ENOTDIR' })
      throw await notADirectoryError(this.confinement, error, entry, entry, this.shown)
    }
    return PathPinnedDirectory.pin(this.confinement, entry, this.shown, true)
  }

  async rename(from: string, to: string): Promise<void> {
    await this.recheck()
    await rename(this.entry(from), this.entry(to))
  }

  async remove(name: string): Promise<void> {
    await unlink(this.entry(name)).catch(() => {})
  }

  async unlinkEntry(name: string): Promise<void> {
    await this.recheck()
    await unlink(this.entry(name))
  }

  async close(): Promise<void> {}
}

/** An entry name is one path component: `..` through a pinned directory would climb out of it. */
function checkEntryName(name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes(path.sep) || name.includes('\0')) {
    throw new Error(`[spindle/tools-fs] internal: "${name}" is not a single path component`)
  }
  return name
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino
}

function ignoreExists(error: unknown): void {
  if ((error as NodeJS.ErrnoException)?.code !== 'EEXIST') throw error
}

/** Why a directory entry could not be pinned as a directory: a symlink swapped in, a file, or a plain I/O error. */
async function notADirectoryError(confinement: Confinement, error: unknown, entry: string, real: string, shown: string): Promise<unknown> {
  const code = (error as NodeJS.ErrnoException)?.code
  if (code !== 'ENOTDIR' && code !== 'ELOOP') return error
  const stats = await lstat(entry).catch(() => undefined)
  if (!stats || stats.isSymbolicLink() || stats.isDirectory()) return changedError(shown, error)
  const relative = toRootRelative(confinement.root, real)
  return new FileToolError('fs_not_a_directory', `"${shown}" goes through "${relative}", which is a file, not a directory; choose another path`, {
    cause: error,
  })
}
