// Suite 6 — scale: heap per idle session and per finished run with 10,000 sessions; runs/s with 100 concurrent sessions.
import { baselineHeap, type BenchConfig, check, heapAfterGc, type Report } from '../harness.js'
import { memoryRuntime, spindleRun } from '../workload.js'

export async function scaleSuite(config: BenchConfig, report: Report): Promise<void> {
  const sessions = config.quick ? 500 : 10_000
  const lines: Array<Array<string | number>> = []
  {
    const runtime = memoryRuntime(1)
    let warmSessions = 0
    const before = await baselineHeap(() => runtime.sessions.createSession({ id: `warm_${++warmSessions}`, metadata: {} }))
    for (let index = 0; index < sessions; index++) await runtime.sessions.createSession({ id: `idle_${index}`, metadata: {} })
    const idle = (heapAfterGc() - before) / sessions
    report.add(
      { suite: 'scale', case: `${sessions} sessions, in-memory stores`, variant: 'spindle', n: sessions, metric: 'heap per idle session', unit: 'B' },
      idle,
    )
    lines.push(['idle session (created, no run)', sessions, idle])
    let warmRuns = 0
    const beforeRuns = await baselineHeap(() => spindleRun(runtime, 1, { sessionId: `warm_${++warmRuns}` }))
    for (let index = 0; index < sessions; index++) await spindleRun(runtime, 1, { sessionId: `idle_${index}` })
    const perRun = (heapAfterGc() - beforeRuns) / sessions
    report.add(
      { suite: 'scale', case: `${sessions} sessions, in-memory stores`, variant: 'spindle', n: sessions, metric: 'heap per finished run', unit: 'B' },
      perRun,
    )
    lines.push(['finished 1-step run (4 messages, events, snapshots, run record, window cache)', sessions, perRun])
  }
  report.table(`Scale: JS heap after GC with ${sessions.toLocaleString('en-US')} sessions (in-memory stores)`, ['what', 'count', 'bytes each'], lines)

  const concurrent = 100
  const steps = 10
  const waves = config.quick ? 2 : 20
  const runtime = memoryRuntime(steps)
  const throughput: number[] = []
  for (let wave = 0; wave < waves + 1; wave++) {
    const started = performance.now()
    const outputs = await Promise.all(
      Array.from({ length: concurrent }, (_, index) => spindleRun(runtime, steps, { sessionId: `busy_${index}`, concurrent: true })),
    )
    const seconds = (performance.now() - started) / 1000
    check(new Set(outputs.map((output) => output.sessionId)).size === concurrent, 'one run per session')
    if (wave > 0) throughput.push(concurrent / seconds)
  }
  const row = report.add(
    {
      suite: 'scale',
      case: `${concurrent} concurrent sessions, ${steps}-step runs, in-memory`,
      variant: 'spindle',
      n: concurrent,
      metric: 'runs per second',
      unit: 'runs/s',
    },
    throughput,
  )
  report.table(
    `Scale: throughput with ${concurrent} concurrent sessions on one process (${steps}-step runs, ${waves} waves)`,
    ['metric', 'median', 'min', 'max'],
    [
      ['runs/s', row.median, row.min, row.max],
      ['steps/s', row.median * steps, row.min * steps, row.max * steps],
    ],
  )
}
