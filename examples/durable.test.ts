import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { sqliteStores } from '@spindle/store-sqlite'
import { readEffects } from './durable.js'
import { startExample } from './test-support/start-example.js'

const directory = mkdtempSync(join(tmpdir(), 'spindle-durable-example-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))
const databasePath = join(directory, 'durable.db')

const start = (killWhen?: RegExp) => startExample('durable.ts', { DURABLE_DB: databasePath, DURABLE_TURN_MS: '400' }, killWhen)

it('durable example: SIGKILLed mid-run, run again, it continues and every side effect happens once', { timeout: 60_000 }, async () => {
  // Killed while the model streams step 3, right after the hotel booking was journaled.
  const first = await start(/← book_hotel .*\n?step 3/)
  expect(first.signal).toBe('SIGKILL')
  expect(first.output).not.toContain('■ finished')

  const second = await start()
  expect(second.code, second.output).toBe(0)
  expect(second.output).toMatch(/↻ run run_\S+ resumed from step 2/)
  expect(second.output).not.toContain('→ book_hotel')
  expect(second.output).toContain('→ send_confirmation')
  expect(second.output).toContain('■ finished: stop after 4 steps')
  expect(second.output).toContain('answer: All set: three nights in Lisbon')

  const effects = readEffects(join(directory, 'durable-effects.jsonl'))
  expect(effects.map((effect) => effect.tool)).toEqual(['check_weather', 'book_hotel', 'send_confirmation'])
  expect(new Set(effects.map((effect) => effect.key)).size).toBe(3)

  const stores = sqliteStores({ path: databasePath, readonly: true })
  try {
    const [run] = await stores.runs.listRuns({ sessionId: 'durable-demo' })
    expect(run).toMatchObject({ status: 'completed', finishReason: 'stop', step: 4 })
    const roles = (await stores.sessions.listEntries('durable-demo')).map((entry) => entry.kind === 'message' && entry.message.role)
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
  } finally {
    stores.close()
  }

  // A third start finds the run finished and books nothing more.
  const third = await start()
  expect(third.output).toContain('is already completed')
  expect(readEffects(join(directory, 'durable-effects.jsonl'))).toHaveLength(3)
})
