// Packs every published package once for all release checks; the tests read the tarballs from `inject('packedDir')`.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { packAll } from './published-packages.js'

declare module 'vitest' {
  export interface ProvidedContext {
    packedDir: string
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'spindle-packed-'))
  packAll(dir)
  project.provide('packedDir', dir)
  return () => rmSync(dir, { recursive: true, force: true })
}
