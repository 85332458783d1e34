// Races a real concurrent process against the file tools: it flips a directory (or a file) inside the
// root between the real thing and a symlink pointing out while the tools run. No operation may escape.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseToolInput, SpindleError, type Tool, type ToolExecutionContext } from '@spindle/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deleteConfined, fileTools, type FileTools } from './index.js'

const context = {
  runId: 'run',
  sessionId: 'session',
  step: 0,
  callId: 'call',
  toolName: 'tool',
  idempotencyKey: 'key',
  signal: new AbortController().signal,
} as unknown as ToolExecutionContext

async function call<T>(tool: Tool<any, T>, args: unknown): Promise<T> {
  const parsed = parseToolInput(tool, args)
  if (!parsed.success) throw new Error(`invalid arguments: ${parsed.error}`)
  return tool.execute(parsed.value, context)
}

/**
 * The concurrent actor, a separate Node process. `dir`: root/d flips between a real directory and a
 * symlink to ../outside (two atomic renames each way). `file`: root/p.txt flips between a regular file
 * and a symlink to ../outside/secret.txt. It holds each state for `holdMicros` (busy-waiting), reports
 * "ready" once it runs, and on any input on stdin prints how many flips it completed and exits.
 */
const swapperSource = `
const { lstatSync, renameSync, symlinkSync, writeFileSync } = require('node:fs')
const path = require('node:path')
const [root, mode, holdMicros] = process.argv.slice(1)
const at = (name) => path.join(root, name)
const outside = path.join(root, '..', 'outside')
const hold = () => { const end = process.hrtime.bigint() + BigInt(Number(holdMicros) * 1000); while (process.hrtime.bigint() < end); }
const attempt = (step) => { try { step(); return true } catch { return false } }
const isDirectory = (name) => { try { return lstatSync(at(name)).isDirectory() } catch { return false } }
let flips = 0
let stopping = false
process.stdin.on('data', () => { stopping = true })
function burst() {
  for (let index = 0; index < 200; index++) {
    if (mode === 'dir') {
      // A write can create a fresh d in the gap between two renames: move it aside so the flipping goes on.
      if (!attempt(() => renameSync(at('d'), at('d.real'))) && isDirectory('d')) attempt(() => renameSync(at('d'), at('d.extra' + flips)))
      if (attempt(() => renameSync(at('d.link'), at('d')))) flips++
      hold()
      attempt(() => renameSync(at('d'), at('d.link')))
      if (attempt(() => renameSync(at('d.real'), at('d')))) flips++
      hold()
    } else {
      if (attempt(() => { symlinkSync(path.join(outside, 'secret.txt'), at('p.tmp')); renameSync(at('p.tmp'), at('p.txt')) })) flips++
      hold()
      if (attempt(() => { writeFileSync(at('p.tmp'), 'decoy TOP decoy'); renameSync(at('p.tmp'), at('p.txt')) })) flips++
      hold()
    }
  }
  if (stopping) { process.stdout.write('flips ' + flips + '\\n'); process.exit(0) }
  setImmediate(burst)
}
process.stdout.write('ready\\n')
burst()
`

interface Swapper {
  /** Stops the swapper; resolves with how many times it flipped. */
  stop(): Promise<number>
}

async function startSwapper(root: string, mode: 'dir' | 'file', holdMicros: number): Promise<Swapper> {
  const child = spawn(process.execPath, ['-e', swapperSource, root, mode, String(holdMicros)], { stdio: ['pipe', 'pipe', 'inherit'] })
  let output = ''
  const lines = new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('ready\n')) resolve()
    })
  })
  await lines
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let stopped: Promise<number> | undefined
  const stop = async (): Promise<number> => {
    child.stdin.end('stop\n')
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000)
    await exited
    clearTimeout(timer)
    return Number(/flips (\d+)/.exec(output)?.[1] ?? 0)
  }
  return { stop: () => (stopped ??= stop()) }
}

/** Runs `operation(0..count-1)` with `concurrency` calls in flight; tallies successes and refusals. */
async function hammer(count: number, concurrency: number, operation: (index: number) => Promise<void>): Promise<{ succeeded: number; refused: string[] }> {
  let next = 0
  let succeeded = 0
  const refused: string[] = []
  async function worker(): Promise<void> {
    while (next < count) {
      const index = next++
      try {
        await operation(index)
        succeeded++
      } catch (error) {
        // Every failure must be a clear tool error, never a raw Node error.
        expect(SpindleError.isInstance(error), String(error)).toBe(true)
        expect((error as Error).message).toMatch(/^\[spindle\/tools-fs\] /)
        refused.push((error as SpindleError).code)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { succeeded, refused }
}

let base: string
let root: string
let outside: string
let tools: FileTools
let swapper: Swapper | undefined

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'spindle-fs-race-'))
  root = path.join(base, 'root')
  outside = path.join(base, 'outside')
  mkdirSync(path.join(root, 'd'), { recursive: true })
  mkdirSync(outside)
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET outside')
  writeFileSync(path.join(outside, 'only-outside.txt'), 'TOP SECRET outside')
  writeFileSync(path.join(root, 'd', 'secret.txt'), 'decoy inside')
  symlinkSync(outside, path.join(root, 'd.link'))
  writeFileSync(path.join(root, 'p.txt'), 'decoy TOP decoy')
  tools = fileTools({ root, writeNeedsApproval: false })
})

afterEach(async () => {
  await swapper?.stop()
  swapper = undefined
  rmSync(base, { recursive: true, force: true })
})

const outsideUntouched = (): void => {
  expect(readdirSync(outside).sort()).toEqual(['only-outside.txt', 'secret.txt'])
  expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET outside')
}

describe.runIf(process.platform === 'linux')('fileTools under a concurrent symlink swapper (race-free confinement)', () => {
  it('read_file never returns a file from outside when a parent directory is swapped for a symlink', { timeout: 20_000 }, async () => {
    swapper = await startSwapper(root, 'dir', 20)
    const leaks: string[] = []
    const tally = await hammer(2000, 8, async () => {
      const result = await call(tools.readFile, { path: 'd/secret.txt' })
      if (result.content !== 'decoy inside') leaks.push(result.content)
    })
    const flips = await swapper.stop()
    expect(leaks).toEqual([])
    expect(flips).toBeGreaterThan(10)
    expect(tally.succeeded + tally.refused.length).toBe(2000)
    expect(tally.refused.filter((code) => !['fs_outside_root', 'fs_invalid_path', 'fs_not_found'].includes(code))).toEqual([])
    outsideUntouched()
  })

  it('write_file never lands a file outside when a parent directory is swapped for a symlink', { timeout: 20_000 }, async () => {
    swapper = await startSwapper(root, 'dir', 20)
    const tally = await hammer(400, 8, async (index) => {
      // Half into the existing directory, half into a new subdirectory (the parents are created).
      const file = index % 2 === 0 ? `d/w${index}.txt` : `d/new${index}/w.txt`
      await call(tools.writeFile, { path: file, content: 'written' })
    })
    const flips = await swapper.stop()
    outsideUntouched()
    expect(flips).toBeGreaterThan(10)
    expect(tally.succeeded).toBeGreaterThan(0)
    // Every reported success is a file inside the root (wherever the swapper renamed its directory to).
    const landed = readdirSync(root, { recursive: true, encoding: 'utf8' })
    expect(landed.filter((name) => /(^|\/)w\d*\.txt$/.test(name)).length).toBe(tally.succeeded)
    expect(landed.filter((name) => name.includes('spindle-tmp'))).toEqual([])
  })

  it('patch_file never reads or rewrites a file swapped for a symlink to outside', { timeout: 20_000 }, async () => {
    swapper = await startSwapper(root, 'file', 20)
    const leaks: number[] = []
    const tally = await hammer(1000, 8, async () => {
      const result = await call(tools.patchFile, { path: 'p.txt', search: 'TOP', replace: 'T0P' })
      if (result.bytes !== 'decoy T0P decoy'.length) leaks.push(result.bytes)
    })
    const flips = await swapper.stop()
    expect(leaks).toEqual([])
    expect(flips).toBeGreaterThan(10)
    expect(tally.succeeded + tally.refused.length).toBe(1000)
    const left = lstatSync(path.join(root, 'p.txt')).isSymbolicLink() ? '' : readFileSync(path.join(root, 'p.txt'), 'utf8')
    expect(left).not.toContain('SECRET')
    outsideUntouched()
  })

  it('deleteConfined never deletes a file outside when a parent directory is swapped for a symlink', { timeout: 20_000 }, async () => {
    const names = Array.from({ length: 400 }, (_, index) => `del${index}.txt`)
    for (const name of names) {
      writeFileSync(path.join(root, 'd', name), 'inside')
      writeFileSync(path.join(outside, name), 'outside')
    }
    swapper = await startSwapper(root, 'dir', 20)
    const tally = await hammer(names.length, 8, async (index) => {
      await deleteConfined(root, `d/${names[index]}`)
    })
    const flips = await swapper.stop()
    expect(flips).toBeGreaterThan(10)
    expect(tally.succeeded).toBeGreaterThan(0)
    expect(tally.refused.filter((code) => !['fs_outside_root', 'fs_invalid_path', 'fs_not_found'].includes(code))).toEqual([])
    // Every outside file is still there; the inside ones left are those whose delete was refused.
    expect(names.filter((name) => readdirSync(outside).includes(name))).toEqual(names)
    for (const name of names) rmSync(path.join(outside, name))
    outsideUntouched()
  })

  it('list_files and search_files never show or search a directory swapped for a symlink to outside', { timeout: 20_000 }, async () => {
    swapper = await startSwapper(root, 'dir', 20)
    const seen: string[] = []
    const tally = await hammer(1000, 8, async (index) => {
      if (index % 2 === 0) {
        const listed = await call(tools.listFiles, { recursive: true })
        seen.push(...listed.entries.map((entry) => entry.path).filter((entry) => entry.includes('only-outside')))
      } else {
        const found = await call(tools.searchFiles, { query: 'TOP SECRET' })
        seen.push(...found.matches.map((match) => match.path))
      }
    })
    const flips = await swapper.stop()
    expect(seen).toEqual([])
    expect(flips).toBeGreaterThan(10)
    expect(tally.refused).toEqual([])
    outsideUntouched()
  })
})
