// Suite 4 — events: subscribe() fan-out with 1, 10, 100 draining subscribers, and a subscriber that never reads.
import type { AgentEvent, AgentRuntime, LaggedEvent } from '@spindle/core'
import { type BenchConfig, cell, check, measure, type Report, type Variant } from '../harness.js'
import { memoryRuntime, spindleRun } from '../workload.js'

const steps = 100

/** Starts `count` subscribers that drain until they see the run's terminal event; resolves when all have. */
function drainers(runtime: AgentRuntime, count: number): { done: Promise<number[]>; iterators: AsyncIterator<AgentEvent | LaggedEvent>[] } {
  const iterators: AsyncIterator<AgentEvent | LaggedEvent>[] = []
  const promises: Promise<number>[] = []
  for (let index = 0; index < count; index++) {
    const iterator = runtime.subscribe()[Symbol.asyncIterator]()
    iterators.push(iterator)
    promises.push(
      (async () => {
        let received = 0
        for (;;) {
          const next = await iterator.next()
          if (next.done) return received
          received++
          if (next.value.type === 'run.finished') {
            await iterator.return?.()
            return received
          }
        }
      })(),
    )
  }
  return { done: Promise.all(promises), iterators }
}

export async function eventsSuite(config: BenchConfig, report: Report): Promise<void> {
  const runtime = memoryRuntime(steps)
  const variants: Variant[] = [0, 1, 10, 100].map((count) => ({
    name: `${count} draining subscriber${count === 1 ? '' : 's'}`,
    run: async () => {
      const { done } = drainers(runtime, count)
      await spindleRun(runtime, steps)
      const received = await done
      for (const value of received) check(value >= steps * 5, `a subscriber received only ${value} events`)
    },
  }))
  let slow: AsyncIterator<AgentEvent | LaggedEvent> | undefined
  variants.push({
    name: '1 subscriber that never reads',
    before: () => void (slow = runtime.subscribe()[Symbol.asyncIterator]()),
    run: async () => void (await spindleRun(runtime, steps)),
    after: async () => {
      const first = await slow!.next()
      check(!first.done && first.value.type === 'lagged' && first.value.missed > 0, 'the slow subscriber was not told it lagged')
      await slow!.return?.()
    },
  })
  const samples = await measure(variants, { rounds: config.quick ? 3 : 11, warmup: 1, unitsPerRun: steps })
  const lines: Array<Array<string | number>> = []
  for (const [name, { wall, cpu }] of samples) {
    const base = { suite: 'events', case: `${steps}-step run with subscribers`, variant: name, n: steps }
    lines.push([
      name,
      cell(report.add({ ...base, metric: 'wall per step', unit: 'µs' }, wall)),
      cell(report.add({ ...base, metric: 'cpu per step', unit: 'µs' }, cpu)),
    ])
  }
  report.table(
    `Events: a ${steps}-step run while subscribers drain every event (until run.finished) — median (min–max)`,
    ['subscribers', 'wall µs/step', 'CPU µs/step'],
    lines,
    'The never-reading subscriber is asserted to receive a `lagged` event (capacity 256) when it finally reads: it lost events instead of slowing the run.',
  )
}
