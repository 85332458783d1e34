// A stranger's program, type-checked (strict, nodenext, skipLibCheck off, no @types of its own) and run against the
// packages installed from the registry: an agent whose tool call goes through the OpenAI provider (the real openai
// SDK against @spindle/testing's loopback server), with its session on SQLite; the file is reopened and the session
// continued, so the second request carries the first run's history read back from disk. One helper of the
// `@spindle/core/plugin-kit` subpath (findStoreBatch) proves that export resolves, for types and at run time.
import { AgentRuntime, Extensions, ToolSchemaError, defineTool } from '@spindle/core'
import { findStoreBatch } from '@spindle/core/plugin-kit'
import { createOpenAI } from '@spindle/openai'
import { sqliteStores } from '@spindle/store-sqlite'
import { openaiResponsesWire, startScriptedServer } from '@spindle/testing'
import { z } from 'zod'

const server = await startScriptedServer()
const path = 'agent.db'
let executions = 0
const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => {
    executions++
    return a + b
  },
  idempotent: true,
})
const provider = createOpenAI({ name: 'loopback', apiKey: 'sk-consumer-test', baseURL: `${server.url}/v1`, defaultApi: 'responses' })
const agent = { name: 'calc', model: 'loopback:gpt-test', tools: { add } }

server.enqueue(
  openaiResponsesWire.streamTurn({ toolCalls: [{ id: 'call_add_1', name: 'add', argumentChunks: ['{"a":2,', '"b":3}'] }] }),
  openaiResponsesWire.streamTurn({ text: ['2 + 3 = 5'] }),
)
const first = new Extensions().use(sqliteStores({ path })).use(provider)
const firstRun = await new AgentRuntime(first).run({ agent, input: 'What is 2 + 3?' })
await first.dispose()

server.enqueue(openaiResponsesWire.streamTurn({ text: ['Still 5.'] }))
const reopenedStores = sqliteStores({ path })
const reopened = new Extensions().use(reopenedStores).use(provider)
const secondRun = await new AgentRuntime(reopened).run({ agent, input: 'And again?', sessionId: firstRun.sessionId })
const entries = await reopenedStores.sessions.listEntries(firstRun.sessionId)
const journal = await reopenedStores.executions.listByRun(firstRun.runId)
// The SQLite stores share one StoreBatch: the kernel commits a step in one transaction.
const batched = findStoreBatch(reopenedStores) !== undefined
await reopened.dispose()

let refused = ''
try {
  defineTool({ name: 'bad', description: 'x', inputSchema: { type: 'object' } as never, execute: () => 0 })
} catch (error) {
  if (ToolSchemaError.isInstance(error)) refused = error.code
}

console.log(
  JSON.stringify({
    first: { finishReason: firstRun.finishReason, text: firstRun.text, steps: firstRun.steps },
    second: { finishReason: secondRun.finishReason, text: secondRun.text, sessionId: secondRun.sessionId === firstRun.sessionId },
    executions,
    journal: journal.map((record) => record.status),
    entries: entries.length,
    secondRequestHasHistory: (server.requests[2]?.rawBody ?? '').includes('call_add_1'),
    refused,
    batched,
  }),
)
await server.close()
