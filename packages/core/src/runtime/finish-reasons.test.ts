// Every finish reason of DESIGN §2.2, reached end to end through AgentRuntime with the scripted model.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  AgentRuntime,
  ContextOverflowError,
  defineTool,
  Extensions,
  memoryStores,
  mockModel,
  ProviderError,
  StoreError,
  type AgentEvent,
  type RunStream,
} from '../index.js'

const echo = defineTool({
  name: 'echo',
  description: 'echo',
  inputSchema: z.object({ value: z.string() }),
  execute: ({ value }) => value,
  idempotent: true,
  effect: 'read',
})

async function drain(stream: RunStream): Promise<AgentEvent[]> {
  const events: AgentEvent[] = []
  for await (const event of stream) events.push(event)
  return events
}

function terminalEvents(events: AgentEvent[]) {
  return events.filter((event) => event.type === 'run.finished' || event.type === 'run.failed')
}

describe('finish reasons', () => {
  it('stop: a final answer', async () => {
    const runtime = new AgentRuntime()
    const output = await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'hello' }]) }, input: 'hi' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'hello', steps: 1 })
    expect((await runtime.runs.getRun(output.runId))?.status).toBe('completed')
  })

  it('max_steps: the model keeps calling tools', async () => {
    const model = mockModel((_request, index) => ({ toolCalls: [{ name: 'echo', args: { value: `v${index}` } }] }))
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 3 })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'go' })
    expect(output.finishReason).toBe('max_steps')
    expect(output.steps).toBe(3)
    expect(model.calls).toHaveLength(3)
    // The history never holds a call without its result.
    expect(output.messages.at(-1)?.role).toBe('tool')
  })

  it('max_tool_calls: the calls over the limit are answered with an error and not executed', async () => {
    let executed = 0
    const count = defineTool({ name: 'count', description: 'c', inputSchema: z.object({}), execute: () => ++executed })
    const model = mockModel([
      {
        toolCalls: [
          { name: 'count', args: {} },
          { name: 'count', args: {} },
          { name: 'count', args: {} },
        ],
      },
    ])
    const runtime = new AgentRuntime(new Extensions(), { maxToolCalls: 2 })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { count } }, input: 'go' })
    expect(output.finishReason).toBe('max_tool_calls')
    expect(executed).toBe(0)
    const last = output.messages.at(-1)
    expect(last?.role).toBe('tool')
    expect(last?.role === 'tool' && last.content.every((part) => part.isError)).toBe(true)
  })

  it('budget: token budget exhausted', async () => {
    const model = mockModel((_request, index) => ({
      toolCalls: [{ name: 'echo', args: { value: `${index}` } }],
      usage: { inputTokens: 600, outputTokens: 10 },
    }))
    const runtime = new AgentRuntime(new Extensions(), { budget: { maxTotalTokens: 1_000 } })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'go' })
    expect(output.finishReason).toBe('budget')
    expect(output.usage.inputTokens + output.usage.outputTokens).toBeGreaterThanOrEqual(1_000)
    expect(model.calls).toHaveLength(2)
  })

  it('timeout: the run exceeds runTimeoutMs', async () => {
    const runtime = new AgentRuntime(new Extensions(), { runTimeoutMs: 50 })
    const output = await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'late', delayMs: 5_000 }]) }, input: 'hi' })
    expect(output.finishReason).toBe('timeout')
  })

  it('cancelled: runtime.cancel() while the model streams', async () => {
    const runtime = new AgentRuntime()
    const stream = runtime.stream({ agent: { name: 'a', model: mockModel([{ text: 'x '.repeat(200), chunkSize: 2, delayMs: 2_000 }]) }, input: 'hi' })
    const events: AgentEvent[] = []
    for await (const event of stream) {
      events.push(event)
      if (event.type === 'text.delta' && events.filter((e) => e.type === 'text.delta').length === 3) await runtime.cancel(event.runId)
    }
    const output = await stream.result
    expect(output.finishReason).toBe('cancelled')
    expect(terminalEvents(events)).toHaveLength(1)
    expect((await runtime.runs.getRun(output.runId))?.status).toBe('cancelled')
  })

  it('cancelled: the request signal aborts mid-stream', async () => {
    const runtime = new AgentRuntime()
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 30)
    const output = await runtime.run({
      agent: { name: 'a', model: mockModel([{ text: 'y'.repeat(100), chunkSize: 1, delayMs: 1_000 }]) },
      input: 'hi',
      signal: controller.signal,
    })
    expect(output.finishReason).toBe('cancelled')
  })

  it('awaiting_approval: a gated tool suspends the run', async () => {
    const remove = defineTool({ name: 'remove', description: 'r', inputSchema: z.object({ path: z.string() }), needsApproval: true, execute: () => 'removed' })
    const runtime = new AgentRuntime()
    const output = await runtime.run({
      agent: { name: 'a', model: mockModel([{ toolCalls: [{ name: 'remove', args: { path: 'x' } }] }]), tools: { remove } },
      input: 'go',
    })
    expect(output.finishReason).toBe('awaiting_approval')
    expect((await runtime.runs.getRun(output.runId))?.status).toBe('suspended')
  })

  it('policy: a denied tool with onViolation "stop"', async () => {
    const runtime = new AgentRuntime(new Extensions(), { tools: { deny: ['echo'] }, onViolation: 'stop' })
    const output = await runtime.run({
      agent: { name: 'a', model: mockModel([{ toolCalls: [{ name: 'echo', args: { value: 'x' } }] }]), tools: { echo } },
      input: 'go',
    })
    expect(output.finishReason).toBe('policy')
    expect(output.error?.message).toContain('not allowed')
  })

  it('policy: doom loop — the same call repeated', async () => {
    const model = mockModel(() => ({ toolCalls: [{ name: 'echo', args: { value: 'same' } }] }))
    const runtime = new AgentRuntime(new Extensions(), { doomLoopThreshold: 3, maxSteps: 20 })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'go' })
    expect(output.finishReason).toBe('policy')
    expect(output.error?.code).toBe('doom_loop')
    expect(model.calls).toHaveLength(3)
  })

  it('length: continues the answer, then stops with length after the bounded attempts', async () => {
    const model = mockModel([
      { text: 'part one, ', finishReason: 'length' },
      { text: 'part two, ', finishReason: 'length' },
      { text: 'part three', finishReason: 'length' },
    ])
    const runtime = new AgentRuntime(new Extensions(), { maxLengthContinuations: 2 })
    const output = await runtime.run({ agent: { name: 'a', model }, input: 'write' })
    expect(output.finishReason).toBe('length')
    expect(output.text).toBe('part one, part two, part three')
    // The continuation request ends with the partial answer and a nudge that is not persisted.
    expect(model.calls[1]?.messages.at(-1)).toMatchObject({ role: 'user' })
    expect(output.messages.filter((message) => message.role === 'user')).toHaveLength(1)
  })

  it('length then stop: a continued answer completes', async () => {
    const model = mockModel([{ text: 'Hello ', finishReason: 'length' }, { text: 'world.' }])
    const output = await new AgentRuntime().run({ agent: { name: 'a', model }, input: 'greet' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'Hello world.' })
  })

  it('content_filter', async () => {
    const output = await new AgentRuntime().run({ agent: { name: 'a', model: mockModel([{ text: '', finishReason: 'content-filter' }]) }, input: 'x' })
    expect(output.finishReason).toBe('content_filter')
  })

  it('error: a non-retryable provider error', async () => {
    const runtime = new AgentRuntime()
    const stream = runtime.stream({ agent: { name: 'a', model: mockModel([{ error: new ProviderError('bad request', { status: 400 }) }]) }, input: 'x' })
    const events = await drain(stream)
    const output = await stream.result
    expect(output.finishReason).toBe('error')
    expect(output.error).toMatchObject({ code: 'provider_bad_request', message: 'bad request', status: 400, retryable: false })
    expect(terminalEvents(events)).toEqual([expect.objectContaining({ type: 'run.failed' })])
    expect((await runtime.runs.getRun(output.runId))?.status).toBe('failed')
  })

  it('error: a retryable provider error is retried, then succeeds', async () => {
    const model = mockModel([{ error: { status: 503, message: 'overloaded' } }, { text: 'ok' }])
    const runtime = new AgentRuntime(new Extensions(), { modelRetry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 } })
    const output = await runtime.run({ agent: { name: 'a', model }, input: 'x' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'ok' })
    expect(model.calls).toHaveLength(2)
  })

  it('error: a store failure mid-run still ends with exactly one terminal event and a terminal record', async () => {
    const stores = memoryStores()
    let appends = 0
    const original = stores.sessions.append.bind(stores.sessions)
    stores.sessions.append = async (...args) => {
      if (++appends === 2) throw new StoreError('[test] disk full')
      return original(...args)
    }
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const stream = runtime.stream({ agent: { name: 'a', model: mockModel([{ text: 'never stored' }]) }, input: 'x' })
    const events = await drain(stream)
    const output = await stream.result
    expect(output.finishReason).toBe('error')
    expect(output.error?.message).toContain('disk full')
    expect(terminalEvents(events)).toHaveLength(1)
    expect((await runtime.runs.getRun(output.runId))?.status).toBe('failed')
  })

  it('error: a tool crash is returned to the model, not a run failure', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'b',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error('kaboom')
      },
    })
    const model = mockModel([{ toolCalls: [{ name: 'boom', args: {} }] }, { text: 'recovered' }])
    const output = await new AgentRuntime().run({ agent: { name: 'a', model, tools: { boom } }, input: 'x' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'recovered' })
    const toolMessage = model.calls[1]?.messages.find((message) => message.role === 'tool')
    expect(JSON.stringify(toolMessage)).toContain('kaboom')
  })

  it('context overflow: compacts the earlier turns and retries once', async () => {
    const model = mockModel(
      [
        { text: 'first answer' },
        { toolCalls: [{ name: 'echo', args: { value: 'a'.repeat(400) } }] },
        { error: new ContextOverflowError('prompt is too long', { status: 400 }) },
        { text: 'fits now' },
      ],
      { capabilities: { contextWindow: 100_000, maxOutputTokens: 1_000 } },
    )
    const runtime = new AgentRuntime()
    const first = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'first question' })
    const events = await drain(runtime.stream({ agent: { name: 'a', model, tools: { echo } }, input: 'second question', sessionId: first.sessionId }))
    expect(events.some((event) => event.type === 'compaction.applied')).toBe(true)
    expect(terminalEvents(events)[0]).toMatchObject({ type: 'run.finished', finishReason: 'stop', text: 'fits now' })
    const retried = JSON.stringify(model.calls[3]!.messages)
    expect(retried).not.toContain('first question')
    expect(retried).toContain('second question')
  })

  it('context overflow below the kernel’s own estimate of the window: the retry sends about half the history, not one message less', async () => {
    const runtime = new AgentRuntime()
    let sessionId: string | undefined
    for (let index = 0; index < 12; index++) {
      const answer = mockModel([{ text: `answer ${index} ${'lorem ipsum '.repeat(200)}` }])
      sessionId = (
        await runtime.run({ agent: { name: 'a', model: answer }, input: `question ${index} ${'dolor sit '.repeat(200)}`, ...(sessionId && { sessionId }) })
      ).sessionId
    }
    // The provider's real limit (40,000 characters) is far below what the model declares (128k tokens).
    const sizes: number[] = []
    const model = mockModel((request) => {
      const size = JSON.stringify(request.messages).length
      sizes.push(size)
      return size > 40_000 ? { error: new ContextOverflowError('prompt is too long', { status: 400 }) } : { text: 'fits now' }
    })
    const output = await runtime.run({ agent: { name: 'a', model }, input: 'final question', sessionId })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'fits now' })
    expect(sizes).toHaveLength(2)
    expect(sizes[1]!).toBeLessThan(sizes[0]! * 0.6)
  })

  it("context overflow with nothing to cut but the run's own question: the run fails with the provider's error, the question is never dropped", async () => {
    const model = mockModel(
      [
        { toolCalls: [{ name: 'echo', args: { value: 'a'.repeat(400) } }] },
        { error: new ContextOverflowError('prompt is too long', { status: 400 }) },
        { text: 'unreachable' },
      ],
      { capabilities: { contextWindow: 100_000, maxOutputTokens: 1_000 } },
    )
    const events = await drain(new AgentRuntime().stream({ agent: { name: 'a', model, tools: { echo } }, input: 'first question' }))
    expect(events.some((event) => event.type === 'compaction.applied')).toBe(false)
    expect(terminalEvents(events)[0]).toMatchObject({ type: 'run.failed', error: { code: 'context_length', status: 400 } })
    expect(model.calls).toHaveLength(2)
  })
})
