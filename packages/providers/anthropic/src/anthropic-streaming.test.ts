// The real @anthropic-ai/sdk client over real HTTP against the loopback Anthropic server: stream mapping.
import type { ModelRequest, StreamPart } from '@spindle/core'
import { startAnthropicMessagesServer, type AnthropicMessagesServer } from '@spindle/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createAnthropic } from './index.js'

let server: AnthropicMessagesServer
beforeAll(async () => {
  server = await startAnthropicMessagesServer()
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.scripted.reset()
})

const apiKey = 'sk-ant-test-0123456789abcdef'
const model = () => createAnthropic({ apiKey, baseURL: server.baseURL, retry: { initialDelayMs: 5, maxDelayMs: 20 } })('claude-sonnet-5')
const ask: ModelRequest = { messages: [{ role: 'user', content: 'Hello' }] }

async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = []
  for await (const part of stream) parts.push(part)
  return parts
}
const text = (parts: StreamPart[]) => parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('')
const finishOf = (parts: StreamPart[]) => parts.find((part) => part.type === 'finish') as Extract<StreamPart, { type: 'finish' }> | undefined

describe('@spindle/anthropic streaming', () => {
  it('streams text deltas, response metadata and a stop finish', async () => {
    server.enqueue({ turn: { id: 'msg_abc', model: 'claude-sonnet-5-20260101', blocks: [{ type: 'text', text: ['Hello', ', ', 'world'] }] } })
    const parts = await collect(model().stream(ask))
    expect(parts[0]).toEqual({ type: 'response-metadata', id: 'msg_abc', modelId: 'claude-sonnet-5-20260101' })
    expect(parts.filter((part) => part.type === 'text-delta').map((part) => (part as { delta: string }).delta)).toEqual(['Hello', ', ', 'world'])
    expect(finishOf(parts)).toMatchObject({ finishReason: 'stop', rawFinishReason: 'end_turn' })
    expect(parts.at(-1)?.type).toBe('finish')
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]!.path).toBe('/v1/messages')
    // SDK 1.x sends the API key as a bearer token.
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${apiKey}`)
    expect(server.requests[0]!.headers['anthropic-version']).toBeDefined()
    expect(server.requests[0]!.body).toMatchObject({ model: 'claude-sonnet-5', stream: true, max_tokens: 64_000 })
  })

  it('streams thinking as reasoning deltas with the signature on the final delta, then text', async () => {
    server.enqueue({
      turn: {
        blocks: [
          { type: 'thinking', thinking: ['Let me ', 'think.'], signature: 'EqQBCkgIARABGAIiQL2UoU0b' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
          { type: 'text', text: 'Answer' },
        ],
        usage: { input_tokens: 10, output_tokens: 50, thinking_tokens: 30 },
      },
    })
    const parts = await collect(model().stream({ ...ask, providerOptions: { anthropic: { thinking: { type: 'enabled', budget_tokens: 2048 } } } }))
    const reasoning = parts.filter((part) => part.type === 'reasoning-delta')
    expect(reasoning).toEqual([
      { type: 'reasoning-delta', delta: 'Let me ' },
      { type: 'reasoning-delta', delta: 'think.' },
      { type: 'reasoning-delta', delta: '', signature: 'EqQBCkgIARABGAIiQL2UoU0b' },
      { type: 'reasoning-delta', delta: '', redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
    ])
    expect(parts.findIndex((part) => part.type === 'reasoning-delta')).toBeLessThan(parts.findIndex((part) => part.type === 'text-delta'))
    expect(text(parts)).toBe('Answer')
    expect(finishOf(parts)?.usage).toMatchObject({ reasoningTokens: 30, outputTokens: 50 })
    expect(server.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 })
  })

  it('streams one tool call: start, argument deltas as they arrive, end, tool-calls finish', async () => {
    server.enqueue({ turn: { blocks: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', inputChunks: ['{"ci', 'ty": "Pa', 'ris"}'] }] } })
    const parts = await collect(model().stream(ask))
    const toolParts = parts.filter((part) => part.type.startsWith('tool-call'))
    expect(toolParts).toEqual([
      { type: 'tool-call-start', id: 'toolu_1', name: 'get_weather' },
      { type: 'tool-call-delta', id: 'toolu_1', argsDelta: '{"ci' },
      { type: 'tool-call-delta', id: 'toolu_1', argsDelta: 'ty": "Pa' },
      { type: 'tool-call-delta', id: 'toolu_1', argsDelta: 'ris"}' },
      { type: 'tool-call-end', id: 'toolu_1' },
    ])
    expect(finishOf(parts)).toMatchObject({ finishReason: 'tool-calls', rawFinishReason: 'tool_use' })
  })

  it('streams parallel tool calls by content block index, and a tool without arguments as {}', async () => {
    server.enqueue({
      turn: {
        blocks: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_b', name: 'get_time', input: { zone: 'UTC' } },
          { type: 'tool_use', id: 'toolu_c', name: 'now', inputChunks: [] },
        ],
      },
    })
    const parts = await collect(model().stream(ask))
    const args = new Map<string, string>()
    const names = new Map<string, string>()
    const ended: string[] = []
    for (const part of parts) {
      if (part.type === 'tool-call-start') names.set(part.id, part.name)
      if (part.type === 'tool-call-delta') args.set(part.id, (args.get(part.id) ?? '') + part.argsDelta)
      if (part.type === 'tool-call-end') ended.push(part.id)
    }
    expect(Object.fromEntries(names)).toEqual({ toolu_a: 'get_weather', toolu_b: 'get_time', toolu_c: 'now' })
    expect(JSON.parse(args.get('toolu_a')!)).toEqual({ city: 'Paris' })
    expect(JSON.parse(args.get('toolu_b')!)).toEqual({ zone: 'UTC' })
    expect(JSON.parse(args.get('toolu_c')!)).toEqual({})
    expect(ended).toEqual(['toolu_a', 'toolu_b', 'toolu_c'])
    expect(text(parts)).toBe('Checking.')
  })

  it('routes interleaved deltas of two open tool blocks by index', async () => {
    const delta = (index: number, partial: string) => ({
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partial } },
    })
    server.enqueue({
      events: [
        {
          event: 'message_start',
          data: {
            type: 'message_start',
            message: {
              id: 'msg_i',
              type: 'message',
              role: 'assistant',
              model: 'm',
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 3, output_tokens: 1 },
            },
          },
        },
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_x', name: 'a', input: {} } },
        },
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_y', name: 'b', input: {} } },
        },
        delta(0, '{"v":'),
        delta(1, '{"w":'),
        delta(1, '2}'),
        delta(0, '1}'),
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ],
    })
    const parts = await collect(model().stream(ask))
    const args: Record<string, string> = {}
    for (const part of parts) if (part.type === 'tool-call-delta') args[part.id] = (args[part.id] ?? '') + part.argsDelta
    expect(args).toEqual({ toolu_x: '{"v":1}', toolu_y: '{"w":2}' })
    expect(parts.filter((part) => part.type === 'tool-call-end').map((part) => (part as { id: string }).id)).toEqual(['toolu_y', 'toolu_x'])
  })

  it('reports usage with cache reads as cached input and cache writes counted in input', async () => {
    server.enqueue({
      turn: {
        blocks: [{ type: 'text', text: 'ok' }],
        usage: { input_tokens: 100, cache_read_input_tokens: 1000, cache_creation_input_tokens: 50, output_tokens: 7 },
      },
    })
    const parts = await collect(model().stream(ask))
    expect(finishOf(parts)?.usage).toEqual({ inputTokens: 1150, outputTokens: 7, cachedInputTokens: 1000, totalTokens: 1157 })
  })

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['tool_use', 'tool-calls'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['refusal', 'content-filter'],
    ['pause_turn', 'other'],
  ] as const)('maps stop_reason %s to %s', async (stopReason, expected) => {
    server.enqueue({ turn: { blocks: [{ type: 'text', text: 'x' }], stopReason } })
    const parts = await collect(model().stream(ask))
    expect(finishOf(parts)).toMatchObject({ finishReason: expected, rawFinishReason: stopReason })
  })

  it('completes at message_stop even when the server keeps the connection open', async () => {
    server.enqueue({ turn: { blocks: [{ type: 'text', text: 'done' }] }, stallAfter: 100 })
    const started = Date.now()
    const parts = await collect(createAnthropic({ apiKey, baseURL: server.baseURL, idleTimeoutMs: 1_000 })('claude-sonnet-5').stream(ask))
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' })
    expect(parts.some((part) => part.type === 'error')).toBe(false)
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it('streams structured output from a forced tool as JSON text when structuredOutput is "tool"', async () => {
    server.enqueue({ turn: { blocks: [{ type: 'tool_use', id: 'toolu_json', name: 'final_answer', inputChunks: ['{"answer"', ': 42}'] }] } })
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false }
    const parts = await collect(
      model().stream({ ...ask, responseFormat: { type: 'json', name: 'final_answer', schema }, providerOptions: { anthropic: { structuredOutput: 'tool' } } }),
    )
    expect(JSON.parse(text(parts))).toEqual({ answer: 42 })
    expect(parts.some((part) => part.type.startsWith('tool-call'))).toBe(false)
    expect(finishOf(parts)?.finishReason).toBe('stop')
    const body = server.requests[0]!.body
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'final_answer' })
    expect(body.tools.at(-1)).toMatchObject({ name: 'final_answer', input_schema: schema })
    expect(body.output_config).toBeUndefined()
  })

  it('sends structured output as output_config.format by default', async () => {
    server.enqueue({ turn: { blocks: [{ type: 'text', text: '{"answer": 42}' }] } })
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false }
    const parts = await collect(model().stream({ ...ask, responseFormat: { type: 'json', schema } }))
    expect(JSON.parse(text(parts))).toEqual({ answer: 42 })
    expect(server.requests[0]!.body.output_config).toEqual({ format: { type: 'json_schema', schema } })
    expect(server.requests[0]!.body.tools).toBeUndefined()
  })
})
