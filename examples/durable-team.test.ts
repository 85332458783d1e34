import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { sqliteStores } from '@spindle/store-sqlite'
import { readEffects } from './durable.js'
import { startExample } from './test-support/start-example.js'

const directory = mkdtempSync(join(tmpdir(), 'spindle-durable-team-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))
const databasePath = join(directory, 'durable-team.db')

const start = (killWhen?: RegExp) => startExample('durable-team.ts', { DURABLE_DB: databasePath, DURABLE_TURN_MS: '400' }, killWhen)

it(
  'durable team example: SIGKILLed while the sub-agent works, run again, the sub-agent continues and every booking happens once',
  { timeout: 60_000 },
  async () => {
    // Killed while the travel agent (the concierge's sub-agent) streams its step 3, after the hotel was booked.
    const first = await start(/\[travel-agent\] ← book_hotel .*\n?\[travel-agent\] step 3/)
    expect(first.signal).toBe('SIGKILL')
    expect(first.output).not.toContain('■ [concierge] finished')

    const second = await start()
    expect(second.code, second.output).toBe(0)
    expect(second.output).toMatch(/↻ \[travel-agent\] run run_\S+ resumed from step 2/)
    expect(second.output).toMatch(/↻ \[concierge\] run run_\S+ resumed from step \d/)
    expect(second.output).not.toContain('→ book_hotel')
    expect(second.output).toContain('[travel-agent] → send_confirmation')
    // The concierge's call got the travel agent's answer (not "outcome unknown"), and the concierge finished.
    expect(second.output).toContain('[concierge] ← travel_agent "All set: three nights in Lisbon')
    expect(second.output).toContain('■ [concierge] finished: stop after 2 steps')

    const effects = readEffects(join(directory, 'durable-team-effects.jsonl'))
    expect(effects.map((effect) => effect.tool)).toEqual(['check_weather', 'book_hotel', 'send_confirmation'])

    const stores = sqliteStores({ path: databasePath, readonly: true })
    try {
      const runs = await stores.runs.listRuns()
      expect(runs.map((run) => run.status)).toEqual(['completed', 'completed'])
      const sub = runs.find((run) => run.request.parentRunId !== undefined)!
      expect(sub.sessionId).toMatch(/^sub_/)
      // The travel agent's run was continued, not started twice.
      expect((await stores.runs.listEvents(sub.id)).filter((event) => event.type === 'run.started')).toHaveLength(1)
    } finally {
      stores.close()
    }

    // A third start finds the concierge's run finished and books nothing more.
    const third = await start()
    expect(third.code, third.output).toBe(0)
    expect(third.output).not.toContain('→')
    expect(readEffects(join(directory, 'durable-team-effects.jsonl'))).toHaveLength(3)
  },
)
