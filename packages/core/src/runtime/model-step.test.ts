// callModel's retries: a retryable failure before any output is retried with backoff up to `maxRetries`; a
// failure after output, a non-retryable one or an abort during the backoff is not.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ContextOverflowError, ProviderError } from '../errors/errors.js'
import { Extensions } from '../extensions/extensions.js'
import { mockModel } from '../providers/mock-model.js'
import { defineTool } from '../tools/define-tool.js'
import { AgentRuntime } from './agent-runtime.js'
import { createRuntimePolicy } from '../policy/runtime-policy.js'
import type { LanguageModel, StreamPart } from '../spec/language-model.js'
import { callModel, type ModelStepOptions } from './model-step.js'

/** A model whose attempt i streams `script[i]` (parts, then the error to throw if any); counts its calls. */
function scripted(script: Array<{ parts: StreamPart[]; error?: Error }>): LanguageModel & { attempts: number } {
  const model = {
    specificationVersion: 'v1' as const,
    provider: 'test',
    modelId: 'scripted',
    capabilities: { contextWindow: 1_000, maxOutputTokens: 100, tools: true, parallelTools: true, reasoning: false, structuredOutput: false },
    attempts: 0,
    async *stream() {
      const turn = script[model.attempts++]!
      for (const part of turn.parts) yield part
      if (turn.error) throw turn.error
    },
  }
  return model
}

function options(signal = new AbortController().signal, maxRetries = 2): ModelStepOptions & { events: unknown[] } {
  const events: unknown[] = []
  return {
    step: 1,
    signal,
    policy: createRuntimePolicy({ modelRetry: { maxRetries, initialDelayMs: 1, maxDelayMs: 2 } }),
    emit: (event) => void events.push(event),
    pressure: () => undefined,
    events,
  }
}

const overloaded = () => new ProviderError('overloaded', { status: 503 })
const finish: StreamPart = { type: 'finish', finishReason: 'stop' }

describe('callModel retries', () => {
  it('retries a retryable failure before any output, then returns the answer', async () => {
    const model = scripted([{ parts: [], error: overloaded() }, { parts: [], error: overloaded() }, { parts: [{ type: 'text-delta', delta: 'ok' }, finish] }])
    const result = await callModel(model, { messages: [] }, options())
    expect(result).toMatchObject({ text: 'ok', finishReason: 'stop', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } })
    expect(model.attempts).toBe(3)
  })

  it('gives up after maxRetries with the last error', async () => {
    const model = scripted([
      { parts: [], error: overloaded() },
      { parts: [], error: overloaded() },
      { parts: [], error: new ProviderError('still overloaded', { status: 503 }) },
    ])
    await expect(callModel(model, { messages: [] }, options(undefined, 2))).rejects.toThrow('still overloaded')
    expect(model.attempts).toBe(3)
  })

  it('does not retry once output was produced, nor a non-retryable error', async () => {
    const afterText = scripted([{ parts: [{ type: 'text-delta', delta: 'half' }], error: overloaded() }, { parts: [finish] }])
    await expect(callModel(afterText, { messages: [] }, options())).rejects.toThrow('overloaded')
    expect(afterText.attempts).toBe(1)
    const badRequest = scripted([{ parts: [], error: new ProviderError('bad request', { status: 400 }) }, { parts: [finish] }])
    await expect(callModel(badRequest, { messages: [] }, options())).rejects.toThrow('bad request')
    expect(badRequest.attempts).toBe(1)
  })

  it('does not retry a call the provider already retried (the error reports its attempts)', async () => {
    const retried = new ProviderError('overloaded after 3 requests', { status: 503, attempts: 3 })
    expect(retried).toMatchObject({ isRetryable: true, attempts: 3 })
    const model = scripted([{ parts: [], error: retried }, { parts: [finish] }])
    await expect(callModel(model, { messages: [] }, options())).rejects.toBe(retried)
    expect(model.attempts).toBe(1)
  })

  it('keeps every reasoning block whole, with its own signature, in streamed order among text and tool calls', async () => {
    const call = (id: string): StreamPart[] => [
      { type: 'tool-call-start', id, name: 'look' },
      { type: 'tool-call-delta', id, argsDelta: '{"q":1}' },
      { type: 'tool-call-end', id },
    ]
    // Anthropic interleaved thinking: thinking, redacted thinking, tool use, thinking, text, tool use.
    const model = scripted([
      {
        parts: [
          { type: 'reasoning-delta', delta: 'Think ' },
          { type: 'reasoning-delta', delta: 'A.' },
          { type: 'reasoning-delta', delta: '', signature: 'SIG_A' },
          { type: 'reasoning-delta', delta: '', redacted: 'OPAQUE' },
          ...call('c1'),
          { type: 'reasoning-delta', delta: 'Think B.' },
          { type: 'reasoning-delta', delta: '', signature: 'SIG_B' },
          { type: 'text-delta', delta: 'Checking ' },
          { type: 'text-delta', delta: 'again.' },
          ...call('c2'),
          { type: 'finish', finishReason: 'tool-calls' },
        ],
      },
    ])
    const result = await callModel(model, { messages: [] }, options())
    expect(result.message.content).toEqual([
      { type: 'reasoning', text: 'Think A.', signature: 'SIG_A' },
      { type: 'reasoning', text: '', redacted: 'OPAQUE' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'look', args: { q: 1 } },
      { type: 'reasoning', text: 'Think B.', signature: 'SIG_B' },
      { type: 'text', text: 'Checking again.' },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'look', args: { q: 1 } },
    ])
    expect(result.text).toBe('Checking again.')
    expect(result.toolCalls.map((pending) => pending.callId)).toEqual(['c1', 'c2'])
    // OpenAI Responses: two reasoning items in a row, each closed by its own signature, stay two parts.
    const items = scripted([
      {
        parts: [
          { type: 'reasoning-delta', delta: 'Plan A.' },
          { type: 'reasoning-delta', delta: '', signature: 'rs_A' },
          { type: 'reasoning-delta', delta: 'Plan B.' },
          { type: 'reasoning-delta', delta: '', signature: 'rs_B' },
          { type: 'text-delta', delta: 'ok' },
          finish,
        ],
      },
    ])
    expect((await callModel(items, { messages: [] }, options())).message.content).toEqual([
      { type: 'reasoning', text: 'Plan A.', signature: 'rs_A' },
      { type: 'reasoning', text: 'Plan B.', signature: 'rs_B' },
      { type: 'text', text: 'ok' },
    ])
  })

  it('an abort during the backoff rejects with its reason and makes no further attempt', async () => {
    const controller = new AbortController()
    const model = scripted([{ parts: [], error: new ProviderError('slow down', { status: 429, retryAfterMs: 60_000 }) }, { parts: [finish] }])
    const calling = callModel(model, { messages: [] }, options(controller.signal))
    setTimeout(() => controller.abort(new Error('cancelled by the caller')), 5)
    await expect(calling).rejects.toThrow('cancelled by the caller')
    expect(model.attempts).toBe(1)
  })

  it('a tool call whose arguments are not JSON comes back with the raw text and the parse error', async () => {
    const model = scripted([
      {
        parts: [
          { type: 'tool-call-start', id: 'c1', name: 'add' },
          { type: 'tool-call-delta', id: 'c1', argsDelta: '{"a": 1,' },
          { type: 'tool-call-end', id: 'c1' },
          { type: 'tool-call-start', id: 'c2', name: 'add' },
          { type: 'tool-call-end', id: 'c2' },
          { type: 'finish', finishReason: 'tool-calls' },
        ],
      },
    ])
    const result = await callModel(model, { messages: [] }, options())
    expect(result.toolCalls[0]).toMatchObject({ callId: 'c1', toolName: 'add', args: '{"a": 1,', argsError: expect.stringMatching(/JSON/) })
    expect(result.toolCalls[1]).toEqual({ callId: 'c2', toolName: 'add', args: {} })
  })
})

describe("a run's model steps", () => {
  it('the assistant message holds reasoning, text and every tool call in order, with the calls as pending calls', async () => {
    const model = scripted([
      {
        parts: [
          { type: 'reasoning-delta', delta: 'think', signature: 'sig' },
          { type: 'text-delta', delta: 'on it' },
          { type: 'tool-call-start', id: 'c1', name: 'add' },
          { type: 'tool-call-delta', id: 'c1', argsDelta: '{"a":1}' },
          { type: 'tool-call-end', id: 'c1' },
          { type: 'tool-call-start', id: 'c2', name: 'mul' },
          { type: 'tool-call-end', id: 'c2' },
          { type: 'finish', finishReason: 'tool-calls' },
        ],
      },
    ])
    const result = await callModel(model, { messages: [] }, options())
    expect(result.message.content).toEqual([
      { type: 'reasoning', text: 'think', signature: 'sig' },
      { type: 'text', text: 'on it' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'add', args: { a: 1 } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'mul', args: {} },
    ])
    expect(Object.keys(result.message.content)).toHaveLength(4)
    expect(result.toolCalls).toEqual([
      { callId: 'c1', toolName: 'add', args: { a: 1 } },
      { callId: 'c2', toolName: 'mul', args: {} },
    ])
  })

  it('a calibrating tokenizer observes each answered request once: not the call that overflowed, but its retry', async () => {
    const observed: Array<[number, number]> = []
    const tokenizer = {
      name: 'spy',
      count: (text: string) => Math.ceil(text.length / 4),
      observe: (estimated: number, actual: number) => void observed.push([estimated, actual]),
    }
    const model = mockModel(
      [
        { text: 'first answer', usage: { inputTokens: 100 } },
        { toolCalls: [{ name: 'echo', args: { value: 'a'.repeat(400) } }], usage: { inputTokens: 111 } },
        { error: new ContextOverflowError('prompt is too long', { status: 400 }) },
        { text: 'fits now', usage: { inputTokens: 222 } },
      ],
      { capabilities: { contextWindow: 100_000, maxOutputTokens: 1_000 } },
    )
    const echo = defineTool({ name: 'echo', description: 'echo', inputSchema: z.object({ value: z.string() }), execute: ({ value }) => value })
    const runtime = new AgentRuntime(new Extensions(), {}, { tokenizer })
    // A first turn the overflow's compaction can cut (the run's own question is never cut).
    const first = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'first question' })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'second question', sessionId: first.sessionId })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'fits now', steps: 2 })
    expect(observed.map(([, actual]) => actual)).toEqual([100, 111, 222])
    for (const [estimated] of observed) expect(estimated).toBeGreaterThan(0)
  })
})
