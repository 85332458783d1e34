// Micro-measurement of a durable step on SQLite (a few seconds): WAL pages per tool step, and wall and CPU time per
// step of a 10-step run on a warm session (as bench/src/suites/durable.ts: run time / 10; p10 and median). From
// the repo root: node --conditions=@spindle/source --import tsx packages/stores/sqlite/src/__fixtures__/measure-steps.ts [samples]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sqliteStores } from '../index.js'
import { pagesPerStep, runSteps, stepRuntime } from './step-workload.js'

const samples = Number(process.argv[2] ?? 100)
const stepsPerRun = 10

const directory = mkdtempSync(join(tmpdir(), 'spindle-measure-steps-'))
try {
  const pageStores = sqliteStores({ path: join(directory, 'pages.db') })
  const pages = await pagesPerStep(pageStores)
  pageStores.close()

  const stores = sqliteStores({ path: join(directory, 'time.db') })
  const wall: number[] = []
  const cpu: number[] = []
  for (let index = 0; index < samples + 10; index++) {
    // A fresh runtime per sample, a first run to warm the session, and the session deleted after (as the bench).
    const runtime = stepRuntime(stores, stepsPerRun)
    const sessionId = `measure-${index}`
    await stores.sessions.createSession({ id: sessionId })
    await runSteps(runtime, stepsPerRun, sessionId)
    const cpuBefore = process.cpuUsage()
    const started = performance.now()
    await runSteps(runtime, stepsPerRun, sessionId)
    const elapsed = performance.now() - started
    const used = process.cpuUsage(cpuBefore)
    await stores.sessions.deleteSession(sessionId)
    if (index < 10) continue // warm-up
    wall.push((elapsed * 1000) / stepsPerRun)
    cpu.push((used.user + used.system) / stepsPerRun)
  }
  stores.close()
  const at = (values: number[], fraction: number) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) * fraction)]!.toFixed(1)
  console.log(
    JSON.stringify({
      pagesPerStep: Number(pages.toFixed(2)),
      wallMicrosecondsPerStep: { p10: at(wall, 0.1), median: at(wall, 0.5) },
      cpuMicrosecondsPerStep: { p10: at(cpu, 0.1), median: at(cpu, 0.5) },
      samples,
    }),
  )
} finally {
  rmSync(directory, { recursive: true, force: true })
}
