// Edges of submitting a run: malformed or unserializable input is a typed AdmissionError with nothing written; a
// double submit shares the first run even when the session refuses contention; a retried submit after the first
// process died resumes the run instead of waiting for ever (found by a QA pass on the kernel).
import { expect, it } from 'vitest'
import { z } from 'zod'
import { AdmissionError, AgentRuntime, defineTool, Extensions, memoryStores, mockModel } from '../index.js'

const agent = { name: 'a', model: mockModel(() => ({ text: 'ok' })) }

it.each([
  ['a text part without text', [{ role: 'user', content: [{ type: 'text' }] }]],
  ['a text part whose text is a number', [{ role: 'user', content: [{ type: 'text', text: 42 }] }]],
  ['a text part whose text is null', [{ role: 'user', content: [{ type: 'text', text: null }] }]],
  [
    'a tool call without its id',
    [
      { role: 'assistant', content: [{ type: 'tool-call', toolName: 'pay', args: {} }] },
      { role: 'user', content: 'hi' },
    ],
  ],
  ['a value JSON cannot hold (a BigInt)', [{ role: 'user', content: [{ type: 'text', text: 'hi', extra: 10n }] }]],
  [
    'a tool result whose call the input never asked for',
    [
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'zz', toolName: 'pay', result: 1 }] },
      { role: 'user', content: 'hi' },
    ],
  ],
  [
    'a tool call no tool message answers',
    [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'x1', toolName: 'pay', args: {} }] },
      { role: 'user', content: 'hello' },
    ],
  ],
])('%s is an AdmissionError, and nothing is written', async (_label, input) => {
  const runtime = new AgentRuntime()
  const error = await runtime.run({ agent, input: input as never, sessionId: 'ses_bad' }).catch((caught: unknown) => caught)
  expect(error).toBeInstanceOf(AdmissionError)
  expect(await runtime.sessions.getSession('ses_bad')).toBeUndefined()
  expect(await runtime.runs.listRuns()).toEqual([])
})

it.each([
  ['an agent.model that is no LanguageModel', { agent: { name: 'a', model: {} } }, /agent\.model must be a LanguageModel/],
  ['a model override that is a number', { agent, model: 42 }, /model must be a LanguageModel/],
  ['an empty fallback chain', { agent: { name: 'a', model: [] } }, /empty fallback chain/],
  ['a runtime that is no RuntimeStore', { agent, runtime: new Map() }, /runtime must be a RuntimeStore/],
  ['a signal that is no AbortSignal', { agent, signal: 'abc' }, /signal must be an AbortSignal/],
  [
    'two tools of one name in a tools array',
    {
      agent: {
        ...agent,
        tools: [
          defineTool({ name: 'lookup', description: 'lookup', inputSchema: z.object({}), execute: () => 'customers' }),
          defineTool({ name: 'lookup', description: 'lookup', inputSchema: z.object({}), execute: () => 'orders' }),
        ],
      },
    },
    /agent\.tools\[0\] and agent\.tools\[1\] are both named "lookup"/,
  ],
])('%s is an AdmissionError naming the field, and nothing is written', async (_label, request, message) => {
  const runtime = new AgentRuntime()
  const error = await runtime.run({ input: 'hi', sessionId: 'ses_bad_handle', ...(request as object) } as never).catch((caught: unknown) => caught)
  expect(error).toBeInstanceOf(AdmissionError)
  expect((error as Error).message).toMatch(message)
  expect((error as Error).message).toMatch(/^\[spindle\/core\]/)
  expect(await runtime.sessions.getSession('ses_bad_handle')).toBeUndefined()
  expect(await runtime.runs.listRuns()).toEqual([])
})

it('a double submit with one idempotency key, on a session that refuses contention, returns the first run', async () => {
  const runtime = new AgentRuntime(new Extensions(), { onContention: 'reject' })
  const model = mockModel(() => ({ text: 'done', delayMs: 100 }))
  const request = { agent: { name: 'a', model }, input: 'x', sessionId: 'ses_dup', idempotencyKey: 'k1' }
  const [first, second] = await Promise.all([runtime.run(request), runtime.run(request)])
  expect(second.runId).toBe(first.runId)
  expect(second.text).toBe('done')
  expect(model.calls).toHaveLength(1)
})

it('a submit retried after the first process died mid-run resumes that run instead of waiting for ever', async () => {
  const stores = memoryStores()
  // What a process killed before the run's first step leaves: its run `running`, with a lease nobody renews.
  const first = new AgentRuntime(new Extensions().setStores(stores))
  const { runId } = await first.enqueue({ agent, input: 'pay', sessionId: 'ses_crash', idempotencyKey: 'order-1' })
  await stores.runs.updateRun(runId, { status: 'running', startedAt: Date.now() - 60_000, lease: { owner: 'dead-process', expiresAt: Date.now() - 30_000 } })
  const second = new AgentRuntime(new Extensions().setStores(stores))
  const model = mockModel([{ text: 'paid' }])
  const retried = await Promise.race([
    second.run({ agent: { name: 'a', model }, input: 'pay', sessionId: 'ses_crash', idempotencyKey: 'order-1' }),
    new Promise<'HUNG'>((resolve) => setTimeout(() => resolve('HUNG'), 4_000)),
  ])
  expect(retried).toMatchObject({ runId, finishReason: 'stop', text: 'paid' })
  expect(await stores.runs.listRuns()).toHaveLength(1)
})

it('a tool call the input answers itself is admitted, and the model sees both', async () => {
  const model = mockModel([{ text: 'ok' }])
  const input = [
    { role: 'user' as const, content: 'pay' },
    { role: 'assistant' as const, content: [{ type: 'tool-call' as const, toolCallId: 'x1', toolName: 'pay', args: {} }] },
    { role: 'tool' as const, content: [{ type: 'tool-result' as const, toolCallId: 'x1', toolName: 'pay', result: 'paid' }] },
    { role: 'user' as const, content: 'thanks' },
  ]
  expect(await new AgentRuntime().run({ agent: { name: 'a', model }, input })).toMatchObject({ finishReason: 'stop' })
  expect(model.calls[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user'])
})

it('an idempotency key older than policy.idempotencyTtlMs starts a new run, which then owns the key (run and enqueue)', async () => {
  const runtime = new AgentRuntime(new Extensions(), { idempotencyTtlMs: 50 })
  const model = mockModel(() => ({ text: 'ok' }))
  const request = { agent: { name: 'a', model }, input: 'x', sessionId: 'ses_ttl', idempotencyKey: 'order-7' }
  const first = await runtime.run(request)
  expect((await runtime.run(request)).runId).toBe(first.runId)
  await new Promise((resolve) => setTimeout(resolve, 80))
  const second = await runtime.run(request)
  expect(second.runId).not.toBe(first.runId)
  expect(second.finishReason).toBe('stop')
  expect((await runtime.runs.findRunByIdempotencyKey('ses_ttl', 'order-7'))?.id).toBe(second.runId)
  expect((await runtime.runs.getRun(first.runId))?.idempotencyKey).toBeUndefined()
  // Within the TTL of the new run, a resubmit is the new run again.
  expect((await runtime.run(request)).runId).toBe(second.runId)
  expect(model.calls).toHaveLength(2)
  await new Promise((resolve) => setTimeout(resolve, 80))
  const queued = await runtime.enqueue(request)
  expect(queued.runId).not.toBe(second.runId)
  expect((await runtime.enqueue(request)).runId).toBe(queued.runId)
})

it("a duplicate submit through stream() streams the run it shares, from that run's log: every event, one terminal event (after it ended, and while it runs)", async () => {
  const runtime = new AgentRuntime()
  const model = mockModel(() => ({ text: 'once upon a time', delayMs: 30 }))
  const request = { agent: { name: 'a', model }, input: 'hi', sessionId: 'ses_dup_stream', idempotencyKey: 'k-stream' }
  const collect = async (stream: AsyncIterable<{ type: string; seq: number }>) => {
    const seen: Array<[string, number]> = []
    for await (const event of stream) seen.push([event.type, event.seq])
    return seen
  }
  // While the first still runs (the double click), then after it ended.
  const [first, concurrent] = await Promise.all([collect(runtime.stream(request)), collect(runtime.stream(request))])
  const later = await collect(runtime.stream(request))
  expect(first.at(-1)?.[0]).toBe('run.finished')
  expect(concurrent).toEqual(first)
  expect(later).toEqual(first)
  expect(model.calls).toHaveLength(1)
})
