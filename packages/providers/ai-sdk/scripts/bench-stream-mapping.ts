// Per-chunk overhead of fromAiSdk over reading an AI SDK model's own stream, and the UI message stream's per-event
// cost, in-process (no network): a spec v3 model streaming N text deltas from memory.
// Run: pnpm tsx --conditions=@spindle/source packages/providers/ai-sdk/scripts/bench-stream-mapping.ts [deltas] [rounds]
import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import type { AgentEvent } from '@spindle/core'
import { fromAiSdk, UIMessageChunkMapper, type UIMessageChunk } from '../src/index.js'

const deltas = Number(process.argv[2] ?? 20_000)
const rounds = Number(process.argv[3] ?? 7)
const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't' }]
for (let index = 0; index < deltas; index++) parts.push({ type: 'text-delta', id: 't', delta: `tok${index} ` })
parts.push({ type: 'text-end', id: 't' }, { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: deltas, text: deltas, reasoning: 0 } } })
const stream = () => new ReadableStream<LanguageModelV3StreamPart>({ start(controller) { for (const part of parts) controller.enqueue(part); controller.close() } })
const model: LanguageModelV3 = {
  specificationVersion: 'v3', provider: 'bench', modelId: 'm', supportedUrls: {},
  doGenerate: async () => { throw new Error('unused') },
  doStream: async () => ({ stream: stream() }),
}
const spindle = fromAiSdk(model, { maxRetries: 0 })

async function bare(): Promise<number> {
  let count = 0
  const reader = (await model.doStream({ prompt: [] })).stream.getReader()
  for (;;) { const next = await reader.read(); if (next.done) break; if (next.value.type === 'text-delta') count++ }
  return count
}
async function adapted(): Promise<number> {
  let count = 0
  for await (const part of spindle.stream({ messages: [{ role: 'user', content: 'x' }] })) if (part.type === 'text-delta') count++
  return count
}
const events: AgentEvent[] = Array.from({ length: deltas }, (_, index) => ({ type: 'text.delta', step: 1, delta: `tok${index} `, runId: 'r', sessionId: 's', seq: index + 2, timestamp: 0 }))
events.unshift({ type: 'step.started', step: 1, runId: 'r', sessionId: 's', seq: 1, timestamp: 0 })
function ui(): number {
  const mapper = new UIMessageChunkMapper()
  const out: UIMessageChunk[] = []
  let count = 0
  for (const event of events) { out.length = 0; mapper.map(event, out); count += out.length }
  return count
}

async function time(fn: () => Promise<number> | number): Promise<number> {
  const samples: number[] = []
  for (let round = 0; round < rounds; round++) {
    const started = performance.now()
    await fn()
    samples.push(((performance.now() - started) * 1000) / deltas)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(samples.length / 2)]!
}
await time(bare); await time(adapted); await time(ui)
const bareUs = await time(bare)
const adaptedUs = await time(adapted)
const uiUs = await time(ui)
console.log(`deltas ${deltas}, median of ${rounds}: AI SDK stream read ${bareUs.toFixed(3)} µs/chunk; through fromAiSdk ${adaptedUs.toFixed(3)} µs/chunk (overhead ${(adaptedUs - bareUs).toFixed(3)}); UI message stream mapping ${uiUs.toFixed(3)} µs/event`)
