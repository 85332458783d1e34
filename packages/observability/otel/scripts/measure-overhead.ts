// Measures the cost per run of observability: redaction off / on (the default), otelPlugin with no SDK
// registered (the API's no-op), and with an SDK exporting to memory. Not part of the test run.
// Run from /work/main: pnpm exec tsx --conditions=@spindle/source packages/observability/otel/scripts/measure-overhead.ts
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { AgentRuntime, defineTool, Extensions, mockModel } from '@spindle/core'
import { z } from 'zod'
import { otelPlugin } from '../src/index.js'

const runsPerRound = Number(process.env.RUNS ?? 300)
const rounds = Number(process.env.ROUNDS ?? 7)

const echo = defineTool({ name: 'echo', description: 'echo', inputSchema: z.object({ v: z.number() }), execute: ({ v }) => ({ v }) })
// Two tool calls, then a 400-character answer streamed in 8-character deltas (50 text events).
const script = () => mockModel([{ toolCalls: [{ name: 'echo', args: { v: 1 } }, { name: 'echo', args: { v: 2 } }] }, { text: 'lorem ipsum '.repeat(33) }])

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
  const started = performance.now()
  for (let index = 0; index < runsPerRound; index++) {
    await runtime.run({ agent: { name: 'bench', model: script(), tools: { echo } }, input: 'go' })
    exporter.reset()
  }
  return ((performance.now() - started) * 1000) / runsPerRound
}

const samples = new Map<string, number[]>(Object.keys(configurations).map((name) => [name, []]))
for (const make of Object.values(configurations)) await round(make) // warm-up
for (let index = 0; index < rounds; index++) {
  // Interleaved, so that drift on a shared machine hits every configuration alike.
  for (const [name, make] of Object.entries(configurations)) samples.get(name)!.push(await round(make))
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const baseline = median(samples.get('redaction off, no plugin')!)
console.log(`${runsPerRound} runs × ${rounds} rounds; per run (2 tool calls, 2 model steps, ~60 events), median [min–max] in µs`)
for (const [name, values] of samples) {
  const value = median(values)
  console.log(`${name.padEnd(40)} ${value.toFixed(0).padStart(6)} µs  [${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}]  ${(((value - baseline) / baseline) * 100).toFixed(1).padStart(5)}%`)
}
