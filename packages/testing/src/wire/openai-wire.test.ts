import { describe, expect, it } from 'vitest'
import { openaiChatEvents, openaiChatWire } from './openai-chat-wire.js'
import { openaiResponsesEvents, openaiResponsesWire } from './openai-responses-wire.js'

const types = (events: Array<{ event?: string }>) => events.map((event) => event.event)
const data = (event: { data: unknown } | undefined) => event?.data as Record<string, any>

describe('openaiResponsesEvents', () => {
  it('renders text as the Responses API sequence with increasing sequence numbers', () => {
    const events = openaiResponsesEvents({ text: ['He', 'llo'] })
    expect(types(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    expect(events.map((event) => data(event).sequence_number)).toEqual(events.map((_, index) => index))
    expect(data(events.at(-1)).response.output[0].content[0].text).toBe('Hello')
  })

  it('renders function calls with item ids, call ids and an incomplete response for length', () => {
    const events = openaiResponsesEvents({
      toolCalls: [{ id: 'call_1', name: 'f', argumentChunks: ['{"a"', ':1}'] }],
      finishReason: 'length',
      usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 2 },
    })
    const added = events.find((event) => event.event === 'response.output_item.added')
    expect(data(added).item).toMatchObject({ type: 'function_call', call_id: 'call_1', name: 'f', id: 'fc_1' })
    expect(data(events.find((event) => event.event === 'response.function_call_arguments.done')).arguments).toBe('{"a":1}')
    const last = data(events.at(-1))
    expect(last.type).toBe('response.incomplete')
    expect(last.response.incomplete_details).toEqual({ reason: 'max_output_tokens' })
    expect(last.response.usage).toMatchObject({ input_tokens: 3, output_tokens: 4, input_tokens_details: { cached_tokens: 2 } })
  })

  it('truncates before the terminal event and in the middle of arguments', () => {
    expect(types(openaiResponsesEvents({ text: ['x'], truncate: 'before-finish' }))).not.toContain('response.completed')
    const cut = openaiResponsesEvents({ toolCalls: [{ id: 'c', name: 'f', argumentChunks: ['{"a"', ':1}'] }], truncate: 'mid-tool-arguments' })
    expect(types(cut).at(-1)).toBe('response.function_call_arguments.delta')
  })

  it('renders an in-band error event after text, with no terminal event', () => {
    const response = openaiResponsesWire.inBandError({ text: ['a'] }, { kind: 'server', status: 500, message: 'boom' })
    expect(types(response.events!).at(-1)).toBe('error')
    expect(data(response.events!.at(-1))).toMatchObject({ type: 'error', code: 'server_error', message: 'boom' })
    expect(types(response.events!)).not.toContain('response.completed')
  })
})

describe('openaiChatEvents', () => {
  it('renders tool call deltas by index, the finish chunk, the usage chunk and [DONE]', () => {
    const events = openaiChatEvents({
      toolCalls: [{ id: 'call_1', name: 'f', argumentChunks: ['{}'] }],
      usage: { inputTokens: 5, outputTokens: 6, reasoningTokens: 1 },
    })
    expect(data(events[1]).choices[0].delta.tool_calls[0]).toEqual({ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } })
    expect(data(events.at(-3)).choices[0].finish_reason).toBe('tool_calls')
    expect(data(events.at(-2))).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 6, completion_tokens_details: { reasoning_tokens: 1 } },
    })
    expect(events.at(-1)?.data).toBe('[DONE]')
    expect(events.every((event) => event.event === undefined)).toBe(true)
  })

  it('renders 429 errors with OpenAI headers and body', () => {
    const response = openaiChatWire.httpError({ kind: 'rate_limit', status: 429, message: 'slow', retryAfterSeconds: 2, retryAfterMs: 1500 })
    expect(response.status).toBe(429)
    expect(response.headers).toMatchObject({ 'retry-after': '2', 'retry-after-ms': '1500' })
    expect(response.json).toEqual({ error: { message: 'slow', type: 'requests', code: 'rate_limit_exceeded', param: null } })
  })
})
