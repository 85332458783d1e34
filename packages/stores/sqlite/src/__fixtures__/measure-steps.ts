// Micro-measurement of a durable step on SQLite (a few seconds): WAL pages per tool step, and the wall and CPU time
// of one more tool step (runs of 22 steps against runs of 2, alternated; p10 and median). From the repo root:
//   node --conditions=@spindle/source --import tsx packages/stores/sqlite/src/__fixtures__/measure-steps.ts [samples]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sqliteStores } from '../index.js'
import { pagesPerStep, runSteps, stepRuntime } from './step-workload.js'

const samples = Number(process.argv[2] ?? 100)
const shortSteps = 2
const longSteps = 22

interface Sample {
  wall: number
  cpu: number
}

const directory = mkdtempSync(join(tmpdir(), 'spindle-measure-steps-'))
try {
  const pageStores = sqliteStores({ path: join(directory, 'pages.db') })
  const pages = await pagesPerStep(pageStores, shortSteps, longSteps)
  pageStores.close()

  const stores = sqliteStores({ path: join(directory, 'time.db') })
  const runtime = stepRuntime(stores, longSteps)
  const measure = async (steps: number): Promise<Sample> => {
    const cpu = process.cpuUsage()
    const started = performance.now()
    await runSteps(runtime, steps)
    const wall = (performance.now() - started) * 1000
    const used = process.cpuUsage(cpu)
    return { wall, cpu: used.user + used.system }
  }
  for (let index = 0; index < 20; index++) await measure(index % 2 === 0 ? shortSteps : longSteps)
  const short: Sample[] = []
  const long: Sample[] = []
  for (let index = 0; index < samples; index++) {
    short.push(await measure(shortSteps))
    long.push(await measure(longSteps))
  }
  stores.close()
  const quantile = (values: number[], fraction: number) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) * fraction)]!
  const perStep = (field: keyof Sample, fraction: number) =>
    ((quantile(long.map((s) => s[field]), fraction) - quantile(short.map((s) => s[field]), fraction)) / (longSteps - shortSteps)).toFixed(1)
  console.log(
    JSON.stringify({
      pagesPerStep: Number(pages.toFixed(2)),
      microsecondsPerStep: { p10: perStep('wall', 0.1), median: perStep('wall', 0.5) },
      cpuMicrosecondsPerStep: { p10: perStep('cpu', 0.1), median: perStep('cpu', 0.5) },
      runsOf22Steps: { p10Ms: (quantile(long.map((s) => s.wall), 0.1) / 1000).toFixed(2), medianMs: (quantile(long.map((s) => s.wall), 0.5) / 1000).toFixed(2) },
      samples,
    }),
  )
} finally {
  rmSync(directory, { recursive: true, force: true })
}
