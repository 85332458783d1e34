// The README's Usage example runs as written, from a directory of its own: the answer streams, and the run is in
// the SQLite file afterwards (read back by another connection, as a restarted process would).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sqliteStores } from '@spindle/store-sqlite'
import { afterAll, expect, it } from 'vitest'

const directory = mkdtempSync(join(tmpdir(), 'spindle-usage-example-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

function run(): Promise<{ code: number | null; output: string }> {
  // `--import tsx` resolved here: the example runs in a temporary directory (its spindle.db is created there).
  const tsx = fileURLToPath(import.meta.resolve('tsx'))
  const child = spawn(process.execPath, ['--conditions=@spindle/source', '--import', tsx, join(import.meta.dirname, 'usage.ts')], {
    cwd: directory,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (data: Buffer) => (output += data.toString()))
  child.stderr.on('data', (data: Buffer) => (output += data.toString()))
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })))
}

it('the README Usage example streams its answer and keeps the run in spindle.db', { timeout: 60_000 }, async () => {
  const first = await run()
  expect(first.code, first.output).toBe(0)
  expect(first.output).toContain('2 + 3 = 5\n(stop, 2 steps)')
  await run()
  const stores = sqliteStores({ path: join(directory, 'spindle.db'), readonly: true })
  try {
    const runs = await stores.runs.listRuns()
    expect(runs).toHaveLength(2)
    expect(runs.every((record) => record.status === 'completed' && record.finishReason === 'stop')).toBe(true)
    const [execution] = await stores.executions.listByRun(runs[0]!.id)
    expect(execution).toMatchObject({ toolName: 'add', status: 'succeeded', result: 5 })
  } finally {
    stores.close()
  }
})
