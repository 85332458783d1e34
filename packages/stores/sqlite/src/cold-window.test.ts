// The cold path: the first run in a fresh runtime on a stored 10,000-message session (tool calls and results, a
// compaction with a summary and a carried message) sends the model exactly the window the log defines — the
// summary, the carried message, every message after the cut in order with its tool-call / tool-result pairs, then
// the new input — on a real SQLite file (a new connection) and on the memory stores.
import {
  AgentRuntime,
  defineTool,
  Extensions,
  memoryStores,
  mockModel,
  type ModelMessage,
  type SessionEntryInput,
  type SessionStore,
  type Stores,
} from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

const total = 10_000
const cut = 6_000

/** Message `index` (seq index + 1) of the seeded log: user, assistant tool call, tool result, assistant answer. */
function message(index: number): ModelMessage {
  const turn = index >> 2
  switch (index % 4) {
    case 0:
      return { role: 'user', content: `question ${turn}` }
    case 1:
      return { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'add', args: { a: turn, b: 1 } }] }
    case 2:
      return { role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${turn}`, toolName: 'add', result: turn + 1 }] }
    default:
      return { role: 'assistant', content: [{ type: 'text', text: `answer ${turn}` }] }
  }
}

const carried = { seq: cut - 3, message: message(cut - 4) }

/** Seeds the session through the public store API: messages 1…cut, the compaction marker, then the rest. */
async function seed(sessions: SessionStore): Promise<ModelMessage[]> {
  await sessions.createSession({ id: 'cold' })
  const append = async (from: number, to: number) => {
    for (let start = from; start < to; start += 1_000) {
      const batch: SessionEntryInput[] = []
      for (let index = start; index < Math.min(to, start + 1_000); index++) batch.push({ kind: 'message', message: message(index), runId: `run_${index >> 3}` })
      await sessions.append('cold', batch)
    }
  }
  await append(0, cut)
  await sessions.append('cold', [
    { kind: 'compaction', compaction: { throughSeq: cut, strategy: 'summarize', summary: 'the first 1,500 turns', carried: [carried] } },
  ])
  await append(cut, total)
  const window = [carried.message]
  for (let index = cut; index < total; index++) window.push(message(index))
  return window
}

const add = defineTool({ name: 'add', description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b })

async function firstRun(extensions: Extensions): Promise<{ requests: ModelMessage[][]; runtime: AgentRuntime }> {
  const runtime = new AgentRuntime(extensions)
  const model = mockModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'call_new' }] }, { text: 'done' }])
  const output = await runtime.run({ agent: { name: 'cold', model, tools: { add } }, input: 'go', sessionId: 'cold' })
  expect(output.finishReason).toBe('stop')
  return { requests: model.calls.map((call) => call.messages), runtime }
}

describe.each([
  [
    'SQLite (a new connection on the file)',
    async () => {
      const path = tempDatabasePath()
      const window = await seed(openStores({ path }).sessions)
      return { window, extensions: new Extensions().use(openStores({ path })) }
    },
  ],
  [
    'memory',
    async () => {
      const stores: Stores = memoryStores()
      const window = await seed(stores.sessions)
      return { window, extensions: new Extensions().setStores(stores) }
    },
  ],
])('the first run on a stored 10,000-message session, %s', (_name, setup) => {
  it('sends the window the log defines: summary, carried message, the messages after the cut with their tool pairs, the input', async () => {
    const { window, extensions } = await setup()
    const { requests, runtime } = await firstRun(extensions)
    const system: ModelMessage = { role: 'system', content: 'Summary of the earlier conversation:\nthe first 1,500 turns' }
    const input: ModelMessage = { role: 'user', content: 'go' }
    expect(requests[0]).toEqual([system, ...window, input])
    const second = requests[1]!
    expect(second.slice(0, window.length + 2)).toEqual([system, ...window, input])
    expect(second.slice(window.length + 2).map((entry) => entry.role)).toEqual(['assistant', 'tool'])
    // The next run in the same runtime (the cached window) sends the same history plus the first run's messages.
    const next = await firstRun(extensions)
    expect(next.requests[0]!.slice(0, second.length)).toEqual(second)
    expect(next.requests[0]!.slice(second.length)).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'done' }] }, input])
    // Both runs appended after the window: the log holds everything, the cut unchanged.
    const entries = await runtime.sessions.listEntries('cold', { after: cut })
    expect(entries.filter((entry) => entry.kind === 'message')).toHaveLength(total - cut + 8)
    expect(await runtime.sessions.listEntries('cold', { kind: 'compaction' })).toHaveLength(1)
  })
})
