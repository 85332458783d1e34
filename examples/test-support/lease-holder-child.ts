// A process that starts runs on a SQLite file with the default owner id and then hangs in them (its model never
// finishes), printing HOLDING once each has streamed. The restart test SIGKILLs it, or leaves it alive.
import { AgentRuntime, Extensions, type LanguageModel, type StreamPart } from '@spindle/core'
import { sqliteStores } from '@spindle/store-sqlite'

const hung: LanguageModel = {
  specificationVersion: 'v1',
  provider: 'hung',
  modelId: 'm',
  capabilities: { contextWindow: 100_000, maxOutputTokens: 1000, tools: false, parallelTools: false, reasoning: false, structuredOutput: false },
  async *stream(): AsyncIterable<StreamPart> {
    yield { type: 'text-delta', delta: 'working ' }
    await new Promise(() => {})
  },
}

const runtime = new AgentRuntime(new Extensions().use(sqliteStores({ path: process.env.LEASE_DB! })), { leaseMs: 30_000 })
const agent = { name: 'writer', model: hung }
const requests = [
  { agent, input: 'recover me', sessionId: 'recovered' },
  { agent, input: 'key me', sessionId: 'keyed', idempotencyKey: 'job-1' },
]
let streaming = 0
for (const request of requests) {
  void (async () => {
    for await (const event of runtime.stream(request))
      if (event.type === 'text.delta' && ++streaming === requests.length) console.log(`HOLDING ${runtime.ownerId}`)
  })()
}
