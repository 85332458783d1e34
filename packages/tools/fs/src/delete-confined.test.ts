// deleteConfined: one file removed inside its root; everything else refused with a FileToolError, nothing outside touched.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { deleteConfined, FileToolError } from './index.js'

const sandbox = mkdtempSync(path.join(tmpdir(), 'spindle-delete-'))
afterAll(() => rmSync(sandbox, { recursive: true, force: true }))

/** A fresh root with `notes/a.txt`, a file outside it, and links: one to that file, one to the root itself. */
function layout(name: string) {
  const top = path.join(sandbox, name)
  const root = path.join(top, 'root')
  mkdirSync(path.join(root, 'notes'), { recursive: true })
  writeFileSync(path.join(root, 'notes', 'a.txt'), 'a')
  writeFileSync(path.join(top, 'outside.txt'), 'keep me')
  symlinkSync(path.join(top, 'outside.txt'), path.join(root, 'out-link'))
  symlinkSync(root, path.join(top, 'root-link'))
  return { root, outsideFile: path.join(top, 'outside.txt'), rootLink: path.join(top, 'root-link') }
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (FileToolError.isInstance(error) ? error.code : `not a FileToolError: ${String(error)}`),
  )

describe('deleteConfined', () => {
  it('deletes a file inside the root, and says when there is none', async () => {
    const { root } = layout('basic')
    expect(await deleteConfined(root, 'notes/a.txt')).toEqual({ deleted: true, path: 'notes/a.txt' })
    expect(existsSync(path.join(root, 'notes', 'a.txt'))).toBe(false)
    expect(await deleteConfined(root, 'notes/a.txt')).toEqual({ deleted: false, path: 'notes/a.txt' })
  })

  it('works with a root reached through a symbolic link', async () => {
    const { root, rootLink } = layout('linked-root')
    expect(await deleteConfined(rootLink, 'notes/a.txt')).toEqual({ deleted: true, path: 'notes/a.txt' })
    expect(existsSync(path.join(root, 'notes', 'a.txt'))).toBe(false)
  })

  it('refuses paths out of the root, links pointing out, directories and the root itself', async () => {
    const { root, outsideFile } = layout('refusals')
    expect(await refusal(deleteConfined(root, '../outside.txt'))).toBe('fs_outside_root')
    expect(await refusal(deleteConfined(root, outsideFile))).toBe('fs_invalid_path')
    expect(await refusal(deleteConfined(root, 'out-link'))).toBe('fs_outside_root')
    expect(await refusal(deleteConfined(root, 'notes'))).toBe('fs_not_a_file')
    expect(await refusal(deleteConfined(root, '.'))).toBe('fs_not_a_file')
    expect(existsSync(outsideFile)).toBe(true)
    expect(existsSync(path.join(root, 'notes', 'a.txt'))).toBe(true)
  })
})
