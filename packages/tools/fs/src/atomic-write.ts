// Writes a file through a fresh temp file and a rename inside one pinned directory: the target is
// replaced, never followed, and both steps happen in the directory that was checked.
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { FileToolError } from './file-tool-error.js'
import type { PinnedDirectory } from './pinned-directory.js'

/** NAME_MAX on Linux, macOS and Windows file systems, in bytes (UTF-8 on Linux). */
const nameMaxBytes = 255
/** Mode of a new file before the umask (like `touch` and editors): 0644 under the usual 022 umask. */
const newFileMode = 0o666

export async function atomicWrite(directory: PinnedDirectory, name: string, content: Buffer): Promise<void> {
  const temp = tempName(name)
  // The replacement keeps the mode of the file it replaces (a 0600 key stays private, a script executable).
  // Only the permission bits: set-id bits are not carried onto new content, as a write by others clears them.
  const existing = await directory.statEntry(name).catch(() => undefined)
  const keptMode = existing?.isFile() ? existing.mode & 0o777 : undefined
  // O_CREAT | O_EXCL: fails if anything (a symlink included) already sits at the temp name.
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL
  const handle = await directory.openFile(temp, flags, keptMode ?? newFileMode).catch(async (error: unknown) => {
    // Created, then refused by the check after opening (best-effort mode): remove our own temp file.
    if (FileToolError.isInstance(error)) await directory.remove(temp)
    throw error
  })
  try {
    // open() applied the umask; fchmod does not, so the kept mode is exact. The file is still empty here.
    if (keptMode !== undefined) await handle.chmod(keptMode)
    await handle.writeFile(content)
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => {})
    await directory.remove(temp)
    throw error
  }
  await handle.close()
  try {
    await directory.rename(temp, name)
  } catch (error) {
    await directory.remove(temp)
    throw error
  }
}

/**
 * A hidden, unique temp name beside `name` that fits NAME_MAX: a long name is cut (at a character
 * boundary, counted in UTF-8 bytes) so the random suffix always fits; the suffix alone makes it unique.
 */
export function tempName(name: string): string {
  const suffix = `.${randomBytes(6).toString('hex')}.spindle-tmp`
  return `.${fitUtf8Bytes(name, nameMaxBytes - 1 - suffix.length)}${suffix}`
}

function fitUtf8Bytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text
  let bytes = 0
  let end = 0
  for (const character of text) {
    bytes += Buffer.byteLength(character)
    if (bytes > maxBytes) break
    end += character.length
  }
  return text.slice(0, end)
}
