// Suite 5 — RuntimeStore: snapshot() + run() + dispose() per request, and what a `runtime` adds to a 1-step run.
import { RuntimeStore } from '@spindle/core'
import { type BenchConfig, cell, check, measure, type Report } from '../harness.js'
import { memoryRuntime, spindleRun } from '../workload.js'

export async function runtimeStoreSuite(config: BenchConfig, report: Report): Promise<void> {
  const parent = new RuntimeStore()
  for (let index = 0; index < 8; index++) parent.set(`key${index}`, { index })
  const large = new RuntimeStore()
  for (let index = 0; index < 64; index++) large.set(`key${index}`, { index })
  let cleanups = 0
  const runtime = memoryRuntime(1)
  const lifecycle = (store: RuntimeStore) => async () => {
    const scoped = store.snapshot()
    const seen = await scoped.run(async () => RuntimeStore.current() === scoped)
    check(seen, 'RuntimeStore.current() inside run()')
    await scoped.dispose()
  }
  const samples = await measure(
    [
      { name: 'snapshot + run + dispose (8 values)', run: lifecycle(parent) },
      { name: 'snapshot + run + dispose (64 values)', run: lifecycle(large) },
      {
        name: 'snapshot + run + cleanup + dispose',
        run: async () => {
          const scoped = parent.snapshot()
          await scoped.run(async (store) => void store.set('connection', { open: true }).onCleanup('connection', () => void cleanups++))
          const before = cleanups
          await scoped.dispose()
          check(cleanups === before + 1, 'the cleanup ran once')
        },
      },
    ],
    { rounds: config.quick ? 5 : 15, warmup: 2, unitsPerRun: 1, runsPerSample: config.quick ? 2_000 : 10_000 },
  )
  const runSamples = await measure(
    [
      { name: '1-step run without runtime', run: async () => void (await spindleRun(runtime, 1)) },
      { name: '1-step run with runtime (8 values)', run: async () => void (await spindleRun(runtime, 1, { runtimeStore: parent })) },
    ],
    { rounds: config.quick ? 5 : 15, warmup: 2, unitsPerRun: 1, runsPerSample: config.quick ? 20 : 100 },
  )
  const lines: Array<Array<string | number>> = []
  for (const [name, { wall, cpu }] of [...samples, ...runSamples]) {
    const base = { suite: 'runtime-store', case: 'per request', variant: name, n: 1 }
    lines.push([
      name,
      cell(report.add({ ...base, metric: 'wall per request', unit: 'µs' }, wall)),
      cell(report.add({ ...base, metric: 'cpu per request', unit: 'µs' }, cpu)),
    ])
  }
  report.table('RuntimeStore: per request — median (min–max)', ['operation', 'wall µs', 'CPU µs'], lines)
}
