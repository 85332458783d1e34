// The multi-process crash test: child processes run agents on one SQLite file and are SIGKILLed at seeded
// points (mid model stream, between a side effect and its journal write, around snapshots and other writes);
// the next child recovers and goes on. SPINDLE_CRASH_RUNS sets the task count (default 20; CI runs 200),
// SPINDLE_CRASH_SEED replays a seed, SPINDLE_CRASH_DEFAULT_GATE=1 runs on the unmodified default session gate
// (whose fencing tokens restart at 1 in a new process: see `restartSafeGate` in crash-child.ts).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { checkCrashInvariants } from './check-crash-invariants.js'
import { runCrashCampaign } from './crash-harness.js'

const runs = Number(process.env.SPINDLE_CRASH_RUNS ?? 20)
const seed = Number(process.env.SPINDLE_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31))
const directory = mkdtempSync(join(tmpdir(), 'spindle-crash-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

it(`${runs} runs survive SIGKILL at random points and finish exactly once (seed ${seed})`, { timeout: 120_000 + runs * 3_000 }, async () => {
  console.log(`[crash test] seed ${seed} (replay with SPINDLE_CRASH_SEED=${seed}), ${runs} runs`)
  const databasePath = join(directory, 'crash.db')
  const ledgerPath = join(directory, 'ledger.jsonl')
  // A live subscriber in every child; checked with its catch-up (as an SSE Last-Event-ID reconnect) against the log.
  const livePath = join(directory, 'live.jsonl')
  const report = await runCrashCampaign({ databasePath, ledgerPath, livePath, seed, runs, defaultGate: process.env.SPINDLE_CRASH_DEFAULT_GATE === '1' })
  const { violations, figures } = await checkCrashInvariants({ databasePath, ledgerPath, livePath, seed, runs })
  console.log(`[crash test] ${JSON.stringify({ ...report, ...figures })}`)
  expect(violations).toEqual([])
  expect(report.kills).toBeGreaterThan(0)
  expect(figures.toolCalls).toBeGreaterThan(runs)
  // Kills landed after live deliveries the log never got: the rule was exercised, not only vacuously true.
  expect(figures.discardedSeen).toBeGreaterThan(0)
})
