// The model is told what really happened to each call: a call that ran is never reported as failed or "not
// executed" because of something after it (a cancel of a sibling, a broadcast bus, an artifact store), a huge error
// is capped like a result, and a call is answered exactly once (found by a QA pass on the kernel).
import { expect, it } from 'vitest'
import { z } from 'zod'
import {
  AgentRuntime,
  defineTool,
  Extensions,
  handoff,
  InProcessEventBus,
  memoryStores,
  mockModel,
  type AgentEvent,
  type EventBus,
  type ModelMessage,
} from '../index.js'
import { maxJournalMessageLength } from '../plugin-kit/index.js'

async function sessionMessages(runtime: AgentRuntime, sessionId: string): Promise<ModelMessage[]> {
  return (await runtime.sessions.listEntries(sessionId)).flatMap((entry) => (entry.kind === 'message' ? [entry.message] : []))
}

/** How many results each call of the session got. */
function answers(messages: ModelMessage[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const message of messages) {
    if (message.role === 'assistant') for (const part of message.content) if (part.type === 'tool-call') counts[part.toolCallId] ??= 0
    if (message.role === 'tool') for (const part of message.content) counts[part.toolCallId] = (counts[part.toolCallId] ?? 0) + 1
  }
  return counts
}

it('a cancel mid-step keeps the real result of a sibling call that already ran', async () => {
  const paid: number[] = []
  const pay = defineTool({
    name: 'pay',
    description: 'pay',
    inputSchema: z.object({ amount: z.number() }),
    execute: async ({ amount }) => (paid.push(amount), { paid: amount }),
  })
  const slow = defineTool({
    name: 'slow',
    description: 'slow',
    inputSchema: z.object({}),
    execute: (_input, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
  })
  const model = mockModel([
    {
      toolCalls: [
        { name: 'pay', args: { amount: 5 }, id: 'p1' },
        { name: 'slow', args: {}, id: 's1' },
      ],
    },
  ])
  const runtime = new AgentRuntime()
  const stream = runtime.stream({ agent: { name: 'a', model, tools: { pay, slow } }, input: 'go', sessionId: 'ses_pay' })
  for await (const event of stream) if (event.type === 'tool.result' && event.toolName === 'pay') void runtime.cancel(event.runId)
  const output = await stream.result
  expect(output.finishReason).toBe('cancelled')
  expect(paid).toEqual([5])
  expect((await runtime.executions.get(`${output.runId}:1:p1`))?.status).toBe('succeeded')
  const results = (await sessionMessages(runtime, 'ses_pay')).flatMap((message) => (message.role === 'tool' ? message.content : []))
  const payResult = results.find((part) => part.toolCallId === 'p1')
  expect(payResult).toMatchObject({ result: { paid: 5 } })
  expect(payResult?.isError).not.toBe(true)
  expect(JSON.stringify(results.find((part) => part.toolCallId === 's1'))).toMatch(/Interrupted|Not executed/)
  expect(answers(await sessionMessages(runtime, 'ses_pay'))).toEqual({ p1: 1, s1: 1 })
})

it('a broadcast bus that throws never turns a call that ran into a failure', async () => {
  const inner = new InProcessEventBus()
  const flaky: EventBus = {
    specificationVersion: 'v1',
    publish(event: AgentEvent) {
      if (event.type === 'tool.result') throw new Error('NOTIFY failed: connection reset')
      inner.publish(event)
    },
    subscribe: (options) => inner.subscribe(options),
  }
  const extensions = new Extensions()
  extensions.events = flaky
  let paid = 0
  const pay = defineTool({ name: 'pay', description: 'p', inputSchema: z.object({}), execute: async () => ++paid })
  const model = mockModel([{ toolCalls: [{ name: 'pay', args: {}, id: 'c1' }] }, { text: 'done' }])
  const output = await new AgentRuntime(extensions).run({ agent: { name: 'a', model, tools: { pay } }, input: 'go' })
  expect(output.finishReason).toBe('stop')
  expect(paid).toBe(1)
  const answer = model.calls[1]!.messages.at(-1)
  expect(answer).toMatchObject({ role: 'tool', content: [{ toolCallId: 'c1', result: 1 }] })
  expect(answer?.role === 'tool' && answer.content[0]?.isError).not.toBe(true)
})

it('an artifact store outage while keeping a huge result still reports the call as done (head and tail, no artifact)', async () => {
  const stores = memoryStores()
  stores.artifacts.put = async () => {
    throw new Error('S3 unavailable')
  }
  let charged = 0
  const charge = defineTool({ name: 'charge', description: 'c', inputSchema: z.object({}), execute: async () => (charged++, { receipt: 'r'.repeat(100_000) }) })
  const model = mockModel([{ toolCalls: [{ name: 'charge', args: {}, id: 'c1' }] }, { text: 'done' }])
  const output = await new AgentRuntime(new Extensions().setStores(stores)).run({ agent: { name: 'a', model, tools: { charge } }, input: 'go' })
  expect(output.finishReason).toBe('stop')
  expect(charged).toBe(1)
  const sent = JSON.stringify(model.calls[1]!.messages.at(-1))
  expect(sent).not.toContain('S3 unavailable')
  expect(sent).toContain('rrrr')
  expect(sent.length).toBeLessThan(40_000)
  expect((await stores.executions.get(`${output.runId}:1:c1`))?.status).toBe('succeeded')
})

it('a huge error message is capped before it enters the context, and bounded in the journal', async () => {
  const big = defineTool({
    name: 'big',
    description: 'b',
    inputSchema: z.object({}),
    execute: () => {
      throw new Error(`E${'e'.repeat(500_000)}`)
    },
  })
  const model = mockModel([{ toolCalls: [{ name: 'big', args: {}, id: 'c1' }] }, { text: 'ok' }])
  const runtime = new AgentRuntime()
  const output = await runtime.run({ agent: { name: 'a', model, tools: { big } }, input: 'go' })
  expect(output.finishReason).toBe('stop')
  expect(JSON.stringify(model.calls[1]!.messages).length).toBeLessThan(64_000)
  const stored = (await runtime.executions.get(`${output.runId}:1:c1`))?.error?.message ?? ''
  expect(stored.length).toBeLessThanOrEqual(maxJournalMessageLength)
  expect(stored).toMatch(/^Eeee/)
  expect(stored).toContain('of 500,001 characters cut')
})

it('an approval check that throws asks a human instead of leaving the call unanswered', async () => {
  let paid = 0
  const pay = defineTool({
    name: 'pay',
    description: 'p',
    inputSchema: z.object({}),
    needsApproval: async () => {
      throw new Error('approvals DB down')
    },
    execute: () => ++paid,
  })
  const runtime = new AgentRuntime()
  const output = await runtime.run({
    agent: { name: 'a', model: mockModel([{ toolCalls: [{ name: 'pay', args: {}, id: 'c1' }] }]), tools: { pay } },
    input: 'go',
    sessionId: 'ses_pred',
  })
  expect(output.finishReason).toBe('awaiting_approval')
  expect(paid).toBe(0)
})

it('a handoff whose target model cannot be resolved fails the run with each call answered once', async () => {
  const runtime = new AgentRuntime()
  const output = await runtime.run({
    agent: {
      name: 'front',
      model: mockModel([{ toolCalls: [{ name: 'transfer_to_billing', args: {}, id: 'h1' }] }]),
      tools: { transfer_to_billing: handoff({ name: 'billing', model: 'nowhere:model' }) },
    },
    input: 'go',
    sessionId: 'ses_handoff',
  })
  expect(output.finishReason).toBe('error')
  expect(answers(await sessionMessages(runtime, 'ses_handoff'))).toEqual({ h1: 1 })
})
