// Per-chunk overhead of @spindle/openai's stream mapping against consuming the openai SDK stream directly,
// over real HTTP on 127.0.0.1 (the same loopback wire the tests use), plus the mapper alone in-process.
// Run: pnpm tsx --conditions=@spindle/source packages/providers/openai/scripts/bench-stream-mapping.ts [deltas] [rounds]
import { openaiChatEvents, openaiResponsesEvents, startScriptedServer } from '@spindle/testing'
import OpenAI from 'openai'
import type { ChatCompletionChunk } from 'openai/resources/chat/completions'
import type { ResponseStreamEvent } from 'openai/resources/responses/responses'
import { ChatStreamMapper } from '../src/chat/chat-stream-mapper.js'
import { createOpenAI } from '../src/index.js'
import { ResponsesStreamMapper } from '../src/responses/responses-stream-mapper.js'

const deltas = Number(process.argv[2] ?? 5_000)
const rounds = Number(process.argv[3] ?? 7)
const text = Array.from({ length: deltas }, (_, index) => `tok${index} `)
const responsesEvents = openaiResponsesEvents({ text, usage: { inputTokens: 10, outputTokens: deltas } })
const chatEvents = openaiChatEvents({ text, usage: { inputTokens: 10, outputTokens: deltas } })

const server = await startScriptedServer()
server.setHandler((request) => ({ events: request.path === '/v1/responses' ? responsesEvents : chatEvents }))
const baseURL = `${server.url}/v1`
const client = new OpenAI({ apiKey: 'sk-bench', baseURL, maxRetries: 0 })
const provider = createOpenAI({ apiKey: 'sk-bench', baseURL, maxRetries: 0 })
const request = { messages: [{ role: 'user' as const, content: 'bench' }] }

interface Sample {
  wallMs: number
  cpuMs: number
}

/** Runs the two contenders alternately (so machine noise hits both alike) and returns median wall and CPU times. */
async function compare(direct: () => Promise<number>, mapped: () => Promise<number>): Promise<{ direct: Sample; mapped: Sample }> {
  const samples = { direct: [] as Sample[], mapped: [] as Sample[] }
  const measure = async (run: () => Promise<number>, into: Sample[]) => {
    const cpu = process.cpuUsage()
    const started = performance.now()
    const items = await run()
    const used = process.cpuUsage(cpu)
    into.push({ wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 })
    if (items !== deltas) throw new Error(`expected ${deltas} deltas, got ${items}`)
  }
  await direct()
  await mapped()
  for (let round = 0; round < rounds; round++) {
    await measure(direct, samples.direct)
    await measure(mapped, samples.mapped)
  }
  const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!
  const summary = (list: Sample[]): Sample => ({ wallMs: median(list.map((sample) => sample.wallMs)), cpuMs: median(list.map((sample) => sample.cpuMs)) })
  return { direct: summary(samples.direct), mapped: summary(samples.mapped) }
}

const sdkResponses = async () => {
  let count = 0
  const stream = await client.responses.create({ model: 'm', input: 'bench', stream: true })
  for await (const event of stream) if (event.type === 'response.output_text.delta') count++
  return count
}
const sdkChat = async () => {
  let count = 0
  const stream = await client.chat.completions.create({
    model: 'm',
    messages: [{ role: 'user', content: 'bench' }],
    stream: true,
    stream_options: { include_usage: true },
  })
  for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) count++
  return count
}
const spindle = (api: 'responses' | 'chat') => async () => {
  let count = 0
  for await (const part of provider[api]('m').stream(request)) if (part.type === 'text-delta') count++
  return count
}

function mapperOnly(name: string, events: unknown[], create: () => { map(event: never): unknown[]; end(): unknown[] }) {
  const parsed = events.filter((event) => event !== '[DONE]').map((event) => event)
  const iterations = 20
  const started = performance.now()
  for (let index = 0; index < iterations; index++) {
    const mapper = create()
    for (const event of parsed) mapper.map(event as never)
    mapper.end()
  }
  const perEventNs = ((performance.now() - started) * 1e6) / (iterations * parsed.length)
  return { name, perEventNs }
}

const rows: string[] = []
for (const [api, sdk] of [
  ['responses', sdkResponses],
  ['chat', sdkChat],
] as const) {
  const { direct, mapped } = await compare(sdk, spindle(api))
  const perChunk = (a: number, b: number) => (((b - a) * 1000) / deltas).toFixed(2).padStart(8)
  rows.push(
    `${api.padEnd(10)} | ${direct.wallMs.toFixed(1).padStart(8)} | ${mapped.wallMs.toFixed(1).padStart(8)} | ${perChunk(direct.wallMs, mapped.wallMs)} | ${direct.cpuMs.toFixed(1).padStart(8)} | ${mapped.cpuMs.toFixed(1).padStart(8)} | ${perChunk(direct.cpuMs, mapped.cpuMs)}`,
  )
}
const responsesData = responsesEvents.map((event) => event.data as ResponseStreamEvent)
const chatData = chatEvents.filter((event) => event.data !== '[DONE]').map((event) => event.data as ChatCompletionChunk)
const errors = { provider: 'openai', secrets: [] }
const mappers = [
  mapperOnly('responses', responsesData, () => new ResponsesStreamMapper(errors) as never),
  mapperOnly('chat', chatData, () => new ChatStreamMapper(errors) as never),
]

console.log(
  `\n${deltas} text deltas per stream, median of ${rounds} alternating rounds (ms; CPU includes the in-process server), HTTP on 127.0.0.1, Node ${process.version}\n`,
)
console.log('api        | SDK wall | Spindle  | µs/chunk | SDK cpu  | Spindle  | µs/chunk')
console.log('-----------|----------|----------|----------|----------|----------|---------')
for (const row of rows) console.log(row)
console.log('\nmapper alone (in-process, no I/O):')
for (const mapper of mappers) console.log(`  ${mapper.name.padEnd(10)} ${mapper.perEventNs.toFixed(0)} ns/event`)
await server.close()
