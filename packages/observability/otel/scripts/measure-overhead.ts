// Measures the cost per run of observability: redaction off / on (the default), otelPlugin with no SDK
// registered (the API's no-op), and with an SDK exporting to memory. Not part of the test run.
// Run from /work/main: pnpm exec tsx --conditions=@spindle/source packages/observability/otel/scripts/measure-overhead.ts
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { AgentRuntime, createRedactor, defineTool, Extensions, mockModel, type AgentEvent } from '@spindle/core'
import { z } from 'zod'
import { metrics, trace } from '@opentelemetry/api'
import { OtelObserver, otelPlugin } from '../src/index.js'

const runsPerRound = Number(process.env.RUNS ?? 300)
const rounds = Number(process.env.ROUNDS ?? 7)

const echo = defineTool({ name: 'echo', description: 'echo', inputSchema: z.object({ v: z.number() }), execute: ({ v }) => ({ v }) })
// Two tool calls, then a 400-character answer streamed in 8-character deltas (50 text events).
const script = () =>
  mockModel([
    {
      toolCalls: [
        { name: 'echo', args: { v: 1 } },
        { name: 'echo', args: { v: 2 } },
      ],
    },
    { text: 'lorem ipsum '.repeat(33) },
  ])

const exporter = new InMemorySpanExporter()
const configurations: Record<string, () => Extensions> = {
  'redaction off, no plugin': () => {
    const extensions = new Extensions()
    extensions.redactor = false
    return extensions
  },
  'default (redaction on), no plugin': () => new Extensions(),
  'otelPlugin, no SDK registered': () => new Extensions().use(otelPlugin()),
  'otelPlugin + SDK (in-memory exporter)': () =>
    new Extensions().use(otelPlugin({ tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) })),
}

async function round(make: () => Extensions): Promise<number> {
  const runtime = new AgentRuntime(make())
  // CPU time of this process (user + system), less sensitive than wall time to other work on a shared machine.
  const started = process.cpuUsage()
  for (let index = 0; index < runsPerRound; index++) {
    await runtime.run({ agent: { name: 'bench', model: script(), tools: { echo } }, input: 'go' })
    exporter.reset()
  }
  const used = process.cpuUsage(started)
  return (used.user + used.system) / runsPerRound
}

const samples = new Map<string, number[]>(Object.keys(configurations).map((name) => [name, []]))
for (const make of Object.values(configurations)) await round(make) // warm-up
for (let index = 0; index < rounds; index++) {
  // Interleaved, so that drift on a shared machine hits every configuration alike.
  for (const [name, make] of Object.entries(configurations)) samples.get(name)!.push(await round(make))
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const baseline = median(samples.get('redaction off, no plugin')!)
const baselineMin = Math.min(...samples.get('redaction off, no plugin')!)
const pct = (value: number, reference: number) => `${value >= reference ? '+' : ''}${(((value - reference) / reference) * 100).toFixed(1)}%`
console.log(`${runsPerRound} runs × ${rounds} rounds; per run (2 tool calls, 2 model steps, ~60 events), CPU µs: median [min–max], and min vs baseline min`)
for (const [name, values] of samples) {
  const value = median(values)
  const min = Math.min(...values)
  console.log(
    `${name.padEnd(40)} ${value.toFixed(0).padStart(6)} µs  [${min.toFixed(0)}–${Math.max(...values).toFixed(0)}]  median ${pct(value, baseline)}  min ${pct(min, baselineMin)}`,
  )
}

// Isolated cost: one run's events replayed through the redactor and through the observer with no SDK (the
// global no-op API), many times. Exact where the end-to-end figures above are noisy on a shared machine.
const recorded: AgentEvent[] = []
const recorder = new Extensions()
recorder.redactor = false
recorder.addObserver({ onEvent: (event) => recorded.push(event) })
await new AgentRuntime(recorder).run({ agent: { name: 'bench', model: script(), tools: { echo } }, input: 'go' })
const redactor = createRedactor()
const observer = new OtelObserver({ tracer: trace.getTracer('measure'), meter: metrics.getMeter('measure'), captureContent: false })
const replays = 20_000
const isolated = (label: string, body: (events: AgentEvent[], index: number) => void) => {
  for (let index = 0; index < 2000; index++) body(recorded, index)
  const started = process.cpuUsage()
  for (let index = 0; index < replays; index++) body(recorded, index)
  const used = process.cpuUsage(started)
  console.log(`${label.padEnd(40)} ${((used.user + used.system) / replays).toFixed(2).padStart(6)} µs per run (${recorded.length} events)`)
}
isolated('redactor.redactEvent, every event', (events) => {
  for (const event of events) redactor.redactEvent(event)
})
isolated('OtelObserver.onEvent, no SDK', (events, index) => {
  for (const event of events) observer.onEvent({ ...event, runId: `${event.runId}-${index}` } as AgentEvent)
})
isolated('(copying the events alone, subtract)', (events, index) => {
  for (const event of events) void ({ ...event, runId: `${event.runId}-${index}` } as AgentEvent)
})
