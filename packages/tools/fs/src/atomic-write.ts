// Writes a file through a fresh temp file and a rename inside one pinned directory: the target is
// replaced, never followed, and both steps happen in the directory that was checked.
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { FileToolError } from './file-tool-error.js'
import type { PinnedDirectory } from './pinned-directory.js'

export async function atomicWrite(directory: PinnedDirectory, name: string, content: Buffer): Promise<void> {
  const temp = `.${name}.${randomBytes(6).toString('hex')}.spindle-tmp`
  // O_CREAT | O_EXCL: fails if anything (a symlink included) already sits at the temp name.
  const handle = await directory.openFile(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644).catch(async (error: unknown) => {
    // Created, then refused by the check after opening (best-effort mode): remove our own temp file.
    if (FileToolError.isInstance(error)) await directory.remove(temp)
    throw error
  })
  try {
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
