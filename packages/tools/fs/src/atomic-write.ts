// Writes a file through a fresh temp file and a rename: the target is replaced, never followed.
import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, rm } from 'node:fs/promises'
import path from 'node:path'

export async function atomicWrite(target: string, content: Buffer): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true })
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.spindle-tmp`)
  // 'wx' = O_CREAT | O_EXCL: fails if anything (a symlink included) already sits at the temp name.
  const handle = await open(temp, 'wx', 0o644)
  try {
    await handle.writeFile(content)
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => {})
    await rm(temp, { force: true })
    throw error
  }
  await handle.close()
  try {
    await rename(temp, target)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}
