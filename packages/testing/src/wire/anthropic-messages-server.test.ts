// The Anthropic loopback server speaks the real wire format: SSE framing, event order, error bodies, headers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { anthropicErrorEvent, anthropicStreamEvents } from './anthropic-events.js'
import { startAnthropicMessagesServer, type AnthropicMessagesServer } from './anthropic-messages-server.js'
import { anthropicMessagesWire, anthropicWireEvents } from './anthropic-messages-wire.js'

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

const post = (body: unknown = { model: 'm', max_tokens: 10, messages: [], stream: true }) =>
  fetch(`${server.baseURL}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify(body) })

/** Parses `event:`/`data:` frames. */
function frames(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const lines = frame.split('\n')
      return { event: lines.find((line) => line.startsWith('event: '))!.slice(7), data: JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice(6)) }
    })
}

describe('startAnthropicMessagesServer', () => {
  it('streams a scripted turn as SSE frames in the API order, and records the request', async () => {
    server.enqueue({
      turn: {
        id: 'msg_1',
        blocks: [
          { type: 'text', text: 'Hi there' },
          { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
        ],
        chunkSize: 4,
      },
    })
    const response = await post({ model: 'claude-x', stream: true, messages: [{ role: 'user', content: 'hello' }] })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    expect(response.headers.get('request-id')).toMatch(/^req_/)
    const events = frames(await response.text())
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    for (const event of events) expect(event.data.type).toBe(event.event)
    expect(events[0]!.data.message).toMatchObject({ id: 'msg_1', role: 'assistant', content: [], stop_reason: null })
    expect(events[3]!.data).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi t' } })
    expect(events[6]!.data.content_block).toEqual({ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} })
    expect(events[7]!.data.delta).toEqual({ type: 'input_json_delta', partial_json: '' })
    expect(events[11]!.data.delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null })
    expect(server.requests[0]!.body).toMatchObject({ model: 'claude-x', messages: [{ role: 'user', content: 'hello' }] })
    expect(server.pending).toBe(0)
  })

  it('renders thinking with a signature_delta before its block stops, and redacted thinking whole', () => {
    const events = anthropicStreamEvents({
      blocks: [
        { type: 'thinking', thinking: ['a', 'b'], signature: 'sig' },
        { type: 'redacted_thinking', data: 'zzz' },
      ],
      ping: false,
    })
    expect(
      events.slice(1, 7).map((event) => (event.data as { delta?: { type: string }; content_block?: { type: string } }).delta?.type ?? event.event),
    ).toEqual(['content_block_start', 'thinking_delta', 'thinking_delta', 'signature_delta', 'content_block_stop', 'content_block_start'])
    expect((events[6]!.data as { content_block: unknown }).content_block).toEqual({ type: 'redacted_thinking', data: 'zzz' })
  })

  it('sends error bodies with request-id and retry-after headers and the status of the error type', async () => {
    server.enqueue({ kind: 'error', errorType: 'rate_limit_error', retryAfterSeconds: 3 }, { kind: 'error', errorType: 'overloaded_error' })
    const limited = await post()
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('3')
    const requestId = limited.headers.get('request-id')
    expect(await limited.json()).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: expect.any(String) }, request_id: requestId })
    const overloaded = await post()
    expect(overloaded.status).toBe(529)
    expect(((await overloaded.json()) as { error: { type: string } }).error.type).toBe('overloaded_error')
  })

  it('cuts a stream after N events (truncateAfter) and serves in-band errors', async () => {
    const events = anthropicStreamEvents({ blocks: [{ type: 'text', text: 'x' }] })
    server.enqueue({ events, truncateAfter: 3 }, { events: [events[0]!, anthropicErrorEvent('overloaded_error')] })
    expect(frames(await (await post()).text())).toHaveLength(3)
    const inBand = frames(await (await post()).text())
    expect(inBand.at(-1)).toEqual({ event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } })
  })

  it('answers an unscripted request with an error instead of hanging', async () => {
    const response = await post()
    expect(response.status).toBeGreaterThanOrEqual(500)
  })
})

describe('anthropicMessagesWire', () => {
  it('maps neutral usage: cached tokens move from input_tokens to cache_read_input_tokens', () => {
    const events = anthropicWireEvents({ text: ['ok'], usage: { inputTokens: 1200, outputTokens: 80, cachedInputTokens: 1024, reasoningTokens: 30 } })
    const delta = events.find((event) => event.event === 'message_delta')!.data as { usage: Record<string, unknown> }
    expect(delta.usage).toMatchObject({ input_tokens: 176, cache_read_input_tokens: 1024, output_tokens: 80, output_tokens_details: { thinking_tokens: 30 } })
  })

  it('interleaves parallel tool deltas by index, and truncates mid tool arguments', () => {
    const calls = [
      { id: 'a', name: 'f', argumentChunks: ['1', '2'] },
      { id: 'b', name: 'f', argumentChunks: ['3', '4'] },
    ]
    const interleaved = anthropicWireEvents({ toolCalls: calls, interleaveToolCalls: true })
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => event.data as { index: number; delta: { partial_json: string } })
      .filter((data) => data.delta.partial_json)
      .map((data) => `${data.index}:${data.delta.partial_json}`)
    expect(interleaved).toEqual(['0:1', '1:3', '0:2', '1:4'])
    const cut = anthropicWireEvents({ toolCalls: calls, truncate: 'mid-tool-arguments' })
    expect(cut.at(-1)!.data).toMatchObject({ delta: { partial_json: '1' } })
    expect(cut.some((event) => event.event === 'message_stop')).toBe(false)
  })

  it('declares every Anthropic stop reason', () => {
    expect(anthropicMessagesWire.finishReasonCases.map((entry) => entry.raw).sort()).toEqual(
      ['end_turn', 'max_tokens', 'model_context_window_exceeded', 'pause_turn', 'refusal', 'stop_sequence', 'tool_use'].sort(),
    )
  })
})
