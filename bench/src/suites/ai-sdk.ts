// Suite — ai-sdk: what @spindle/ai-sdk adds per streamed chunk. fromAiSdk's overhead over reading an AI SDK model's
// own stream (a spec v3 model streaming 10,000 text deltas from memory: no network, so the adapter's cost is all
// there is), and the cost per event of the AI SDK UI message stream and of the AG-UI events a run is mapped to.
import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { fromAiSdk, toUIMessageStream, UIMessageChunkMapper, type UIMessageChunk } from '@spindle/ai-sdk'
import { AgUiEventMapper, type AgUiEvent } from '@spindle/ai-sdk/ag-ui'
import type { AgentEvent } from '@spindle/core'
import { type BenchConfig, cell, check, measure, type Report } from '../harness.js'

const chunks = 10_000
const token = ' ab'

const parts: LanguageModelV3StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'response-metadata', id: 'resp-1', modelId: 'bench-model' },
  { type: 'text-start', id: 't' },
]
for (let index = 0; index < chunks; index++) parts.push({ type: 'text-delta', id: 't', delta: token })
parts.push(
  { type: 'text-end', id: 't' },
  {
    type: 'finish',
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: chunks, text: chunks, reasoning: 0 } },
  },
)

/**
 * An AI SDK model streaming the parts from memory, one per pull (as a provider's transform of a network read does).
 * Not all enqueued up front: Node 20's web streams dequeue with `Array.prototype.shift`, so a queue of 10,000 parts
 * costs ~9 µs per read on its own (the profile of the first version of this suite: 72% in `dequeueValue`).
 */
const model: LanguageModelV3 = {
  specificationVersion: 'v3',
  provider: 'bench.chat',
  modelId: 'bench-model',
  supportedUrls: {},
  doGenerate: () => Promise.reject(new Error('[spindle/bench] doGenerate is not used')),
  doStream: () =>
    Promise.resolve({
      stream: partStream(),
    }),
}

function partStream(): ReadableStream<LanguageModelV3StreamPart> {
  let next = 0
  return new ReadableStream<LanguageModelV3StreamPart>({
    pull(controller) {
      controller.enqueue(parts[next++]!)
      if (next === parts.length) controller.close()
    },
  })
}

/** The events of a run that streamed the same answer: a step of `chunks` text deltas. */
const runEvents: AgentEvent[] = [
  { type: 'run.started', agent: 'bench', modelId: 'bench-model', input: 'go', runId: 'r', sessionId: 's', seq: 1, timestamp: 0 },
  { type: 'step.started', step: 1, runId: 'r', sessionId: 's', seq: 2, timestamp: 0 },
]
for (let index = 0; index < chunks; index++)
  runEvents.push({ type: 'text.delta', step: 1, delta: token, runId: 'r', sessionId: 's', seq: index + 3, timestamp: 0 })
const usage = { inputTokens: 1, outputTokens: chunks, totalTokens: chunks + 1 }
runEvents.push(
  { type: 'step.finished', step: 1, usage, finishReason: 'stop', durationMs: 1, runId: 'r', sessionId: 's', seq: chunks + 3, timestamp: 0 },
  { type: 'run.finished', finishReason: 'stop', text: token.repeat(chunks), usage, steps: 1, runId: 'r', sessionId: 's', seq: chunks + 4, timestamp: 0 },
)

async function* replay(): AsyncGenerator<AgentEvent> {
  yield* runEvents
}

export async function aiSdkSuite(config: BenchConfig, report: Report): Promise<void> {
  const spindleModel = fromAiSdk(model, { maxRetries: 0 })
  const request = { messages: [{ role: 'user' as const, content: 'go' }] }
  const rounds = config.quick ? 5 : 15
  const streamSamples = await measure(
    [
      {
        name: 'AI SDK model stream read directly',
        run: async () => {
          const reader = (await model.doStream({ prompt: [] })).stream.getReader()
          let deltas = 0
          for (;;) {
            const next = await reader.read()
            if (next.done) break
            if (next.value.type === 'text-delta') deltas++
          }
          check(deltas === chunks, `bare AI SDK stream got ${deltas} deltas`)
        },
      },
      {
        name: 'fromAiSdk stream',
        run: async () => {
          let deltas = 0
          let finish = ''
          for await (const part of spindleModel.stream(request)) {
            if (part.type === 'text-delta') deltas++
            else if (part.type === 'finish') finish = part.finishReason
          }
          check(deltas === chunks && finish === 'stop', `fromAiSdk got ${deltas} deltas, finish "${finish}"`)
        },
      },
    ],
    { rounds, warmup: 3, unitsPerRun: chunks },
  )
  const bare = streamSamples.get('AI SDK model stream read directly')!
  const lines: Array<Array<string | number>> = []
  for (const [name, { wall, cpu }] of streamSamples) {
    const base = { suite: 'ai-sdk', case: `${chunks} text deltas`, variant: name, n: chunks }
    const wallRow = report.add({ ...base, metric: 'wall per chunk', unit: 'µs' }, wall)
    const cpuRow = report.add({ ...base, metric: 'cpu per chunk', unit: 'µs' }, cpu)
    if (name !== 'fromAiSdk stream') {
      lines.push([name, cell(wallRow), cell(cpuRow), '—', '—'])
      continue
    }
    // Per round: the same round's bare sample subtracted (the variants are interleaved).
    const overheadRow = report.add(
      { ...base, metric: 'overhead per chunk over the AI SDK stream', unit: 'µs' },
      wall.map((value, index) => value - bare.wall[index]!),
    )
    const cpuOverheadRow = report.add(
      { ...base, metric: 'cpu overhead per chunk over the AI SDK stream', unit: 'µs' },
      cpu.map((value, index) => value - bare.cpu[index]!),
    )
    lines.push([name, cell(wallRow), cell(cpuRow), cell(overheadRow), cell(cpuOverheadRow)])
  }
  report.table(
    `AI SDK adapter: an AI SDK model's answer of ${chunks.toLocaleString('en-US')} text deltas through fromAiSdk — median (min–max)`,
    ['variant', 'wall µs/chunk', 'CPU µs/chunk', 'overhead µs/chunk', 'CPU overhead µs/chunk'],
    lines,
    'Goal: under 1 µs of overhead per chunk.',
  )

  const events = runEvents.length
  const uiSamples = await measure(
    [
      {
        name: 'run events read directly (async iterator)',
        run: async () => {
          let read = 0
          for await (const event of replay()) if (event.seq > 0) read++
          check(read === events, `read ${read} events`)
        },
      },
      {
        name: 'UIMessageChunkMapper.map',
        run: () => {
          const mapper = new UIMessageChunkMapper()
          const out: UIMessageChunk[] = []
          let mapped = 0
          for (const event of runEvents) {
            out.length = 0
            mapper.map(event, out)
            mapped += out.length
          }
          check(mapped === chunks + 7, `UI mapper gave ${mapped} chunks`)
        },
      },
      {
        name: 'toUIMessageStream (ReadableStream, read to the end)',
        run: async () => {
          const reader = toUIMessageStream(replay()).getReader()
          let mapped = 0
          for (;;) {
            const next = await reader.read()
            if (next.done) break
            mapped++
          }
          check(mapped === chunks + 7, `UI stream gave ${mapped} chunks`)
        },
      },
      {
        name: 'AgUiEventMapper.map',
        run: () => {
          const mapper = new AgUiEventMapper()
          const out: AgUiEvent[] = []
          let mapped = 0
          for (const event of runEvents) {
            out.length = 0
            mapper.map(event, out)
            mapped += out.length
          }
          check(mapped === chunks + 6, `AG-UI mapper gave ${mapped} events`)
        },
      },
    ],
    { rounds, warmup: 3, unitsPerRun: events, minSampleMs: 10 },
  )
  const direct = uiSamples.get('run events read directly (async iterator)')!.wall
  const uiLines: Array<Array<string | number>> = []
  for (const [name, { wall, cpu }] of uiSamples) {
    const base = { suite: 'ai-sdk', case: `${events} run events`, variant: name, n: events }
    const wallRow = report.add({ ...base, metric: 'wall per event', unit: 'µs' }, wall)
    const cpuRow = report.add({ ...base, metric: 'cpu per event', unit: 'µs' }, cpu)
    // The stream's cost over reading the same events (the mappers alone read an array: their figure is their cost).
    const streamed = name.startsWith('toUIMessageStream')
    const overheadRow = streamed
      ? report.add(
          { ...base, metric: 'overhead per event over reading the events', unit: 'µs' },
          wall.map((value, index) => value - direct[index]!),
        )
      : undefined
    uiLines.push([name, cell(wallRow), cell(cpuRow), overheadRow ? cell(overheadRow) : '—'])
  }
  report.table(
    `UI protocols: a run of ${events.toLocaleString('en-US')} events as AI SDK UI message chunks and AG-UI events — median (min–max)`,
    ['variant', 'wall µs/event', 'CPU µs/event', 'overhead µs/event'],
    uiLines,
  )
}
