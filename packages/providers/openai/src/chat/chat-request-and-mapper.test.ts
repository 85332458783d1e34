import { ConfigurationError } from '@spindle/core'
import { openaiChatEvents } from '@spindle/testing'
import type { ChatCompletionChunk } from 'openai/resources/chat/completions'
import { describe, expect, it } from 'vitest'
import { ChatStreamMapper } from './chat-stream-mapper.js'
import { convertToChatRequest } from './convert-to-chat-request.js'

const errors = { provider: 'openai', secrets: [] }
const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
  ({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason, logprobs: null }],
  }) as unknown as ChatCompletionChunk

describe('convertToChatRequest', () => {
  it('maps messages, tools, tool choice, structured output and limits', () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false }
    const params = convertToChatRequest(
      {
        messages: [
          { role: 'system', content: 'S' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'file', mediaType: 'image/jpeg', data: 'https://example.com/a.jpg' },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'f', args: { n: 1 } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'f', result: 2 }] },
        ],
        tools: [{ name: 'f', description: 'd', inputSchema: schema }],
        toolChoice: 'required',
        responseFormat: { type: 'json', schema },
        maxOutputTokens: 50,
        temperature: 0.1,
        stopSequences: ['END'],
      },
      { provider: 'openai', modelId: 'gpt-4.1', maxTokensField: 'max_completion_tokens' },
    )
    expect(params.messages).toEqual([
      { role: 'system', content: 'S' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"n":1}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '2' },
    ])
    expect(params).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 50,
      temperature: 0.1,
      stop: ['END'],
      tool_choice: 'required',
      tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: schema, strict: true } }],
      response_format: { type: 'json_schema', json_schema: { name: 'response', schema, strict: true } },
    })
  })

  it('uses max_tokens for compatible servers when asked', () => {
    const params = convertToChatRequest(
      { messages: [{ role: 'user', content: 'U' }], maxOutputTokens: 10 },
      { provider: 'ollama', modelId: 'llama3.2', maxTokensField: 'max_tokens' },
    )
    expect((params as unknown as Record<string, unknown>).max_tokens).toBe(10)
    expect((params as unknown as Record<string, unknown>).max_completion_tokens).toBeUndefined()
  })

  it('merges nested provider options into the defaults: stream_options keeps include_usage', () => {
    const params = convertToChatRequest(
      {
        messages: [{ role: 'user', content: 'U' }],
        stopSequences: ['END'],
        providerOptions: { openai: { stream_options: { include_obfuscation: false }, stop: ['###'], reasoning_effort: 'low' } },
      },
      { provider: 'openai', modelId: 'o3', maxTokensField: 'max_completion_tokens' },
    )
    expect(params.stream_options).toEqual({ include_usage: true, include_obfuscation: false })
    expect(params.stop).toEqual(['END', '###'])
    expect(params.reasoning_effort).toBe('low')
  })

  it('refuses a non-image file given as a URL (Chat takes files only as base64), naming the alternatives', () => {
    const convert = (data: string) =>
      convertToChatRequest(
        { messages: [{ role: 'user', content: [{ type: 'file', mediaType: 'application/pdf', data, name: 'x.pdf' }] }] },
        { provider: 'openai', modelId: 'gpt-4.1', maxTokensField: 'max_completion_tokens' },
      )
    expect(() => convert('https://example.com/x.pdf')).toThrow(ConfigurationError)
    expect(() => convert('https://example.com/x.pdf')).toThrow(
      /^\[spindle\/openai\] file "x\.pdf" is a URL, but Chat Completions takes files only as base64 data; pass the file's bytes \(base64 or a data: URL\), or use the Responses API/,
    )
    // Bytes still go as file_data, as a data URL.
    expect(convert('JVBERi0xLjQK').messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQK', filename: 'x.pdf' } }],
    })
    expect(convert('data:application/pdf;base64,JVBERi0xLjQK').messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQK', filename: 'x.pdf' } }],
    })
  })
})

describe('ChatStreamMapper', () => {
  it('maps reasoning_content / reasoning deltas of compatible servers', () => {
    const mapper = new ChatStreamMapper(errors)
    const parts = [...openaiChatEvents({ reasoning: ['a'], text: ['b'] }, { reasoningField: 'reasoning' })].flatMap((event) =>
      event.data === '[DONE]' ? [] : mapper.map(event.data as ChatCompletionChunk),
    )
    expect(parts.filter((part) => part.type === 'reasoning-delta')).toEqual([{ type: 'reasoning-delta', delta: 'a' }])
  })

  it('waits for the id and name before starting a call, buffering early arguments', () => {
    const mapper = new ChatStreamMapper(errors)
    const parts = [
      ...mapper.map(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] })),
      ...mapper.map(chunk({ tool_calls: [{ index: 0, id: 'call_late', function: { name: 'f', arguments: ':1}' } }] })),
      ...mapper.map(chunk({}, 'tool_calls')),
      ...mapper.end(),
    ]
    expect(parts.filter((part) => part.type !== 'response-metadata')).toEqual([
      { type: 'tool-call-start', id: 'call_late', name: 'f' },
      { type: 'tool-call-delta', id: 'call_late', argsDelta: '{"a"' },
      { type: 'tool-call-delta', id: 'call_late', argsDelta: ':1}' },
      { type: 'tool-call-end', id: 'call_late' },
      { type: 'finish', finishReason: 'tool-calls', rawFinishReason: 'tool_calls' },
    ])
  })

  it('accepts a whole tool call in one chunk and a `stop` finish after tool calls (Ollama style)', () => {
    const mapper = new ChatStreamMapper(errors)
    const parts = [
      ...mapper.map(chunk({ tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] })),
      ...mapper.map(chunk({}, 'stop')),
      ...mapper.end(),
    ]
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls', rawFinishReason: 'stop' })
    expect(parts.filter((part) => part.type === 'tool-call-end')).toHaveLength(1)
  })

  it('keeps apart parallel calls that a server sends all at index 0, each with its own id', () => {
    const mapper = new ChatStreamMapper(errors)
    const parts = [
      ...mapper.map(chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'f', arguments: '{"x":1}' } }] })),
      ...mapper.map(chunk({ tool_calls: [{ index: 0, id: 'call_b', function: { name: 'g', arguments: '{"y":' } }] })),
      ...mapper.map(chunk({ tool_calls: [{ index: 0, function: { arguments: '2}' } }] })),
      ...mapper.map(chunk({}, 'tool_calls')),
      ...mapper.end(),
    ]
    const args = new Map<string, string>()
    for (const part of parts) if (part.type === 'tool-call-delta') args.set(part.id, (args.get(part.id) ?? '') + part.argsDelta)
    expect(Object.fromEntries(args)).toEqual({ call_a: '{"x":1}', call_b: '{"y":2}' })
    expect(parts.filter((part) => part.type === 'tool-call-end').map((part) => part.type === 'tool-call-end' && part.id)).toEqual(['call_a', 'call_b'])
  })

  it('throws StreamInterruptedError when no finish_reason came', () => {
    const mapper = new ChatStreamMapper(errors)
    mapper.map(chunk({ content: 'half' }))
    expect(() => mapper.end()).toThrow(expect.objectContaining({ code: 'stream_interrupted' }))
  })
})
