// Request shape on the wire: what the real SDK sends for Spindle requests (system blocks, caching
// breakpoints, tool results, thinking round trip, tool choice, limits).
import { ConfigurationError, Extensions, ProviderRegistry, type AssistantMessage, type ModelRequest, type StreamPart } from '@spindle/core'
import { startAnthropicMessagesServer, type AnthropicMessagesServer } from '@spindle/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { anthropic, anthropicModelCapabilities, createAnthropic } from './index.js'

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

const provider = () => createAnthropic({ apiKey: 'sk-ant-test-key', baseURL: server.baseURL, headers: { 'anthropic-beta': 'test-beta-1' } })
const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}
const time = { name: 'get_time', description: 'Time in a zone', inputSchema: { type: 'object', properties: { zone: { type: 'string' } } } }

async function send(request: ModelRequest, modelId = 'claude-sonnet-5'): Promise<{ body: any; parts: StreamPart[] }> {
  server.enqueue({ turn: { blocks: [{ type: 'text', text: 'ok' }] } })
  const parts: StreamPart[] = []
  for await (const part of provider()(modelId).stream(request)) parts.push(part)
  return { body: server.requests.at(-1)!.body, parts }
}

describe('@spindle/anthropic request mapping', () => {
  it('sends system messages as blocks with a cache breakpoint on the last one, and on the last tool', async () => {
    const { body } = await send({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'system', content: 'Project notes.' },
        { role: 'user', content: 'Weather?' },
      ],
      tools: [weather, time],
    })
    expect(body.system).toEqual([
      { type: 'text', text: 'You are terse.' },
      { type: 'text', text: 'Project notes.', cache_control: { type: 'ephemeral' } },
    ])
    expect(body.tools).toEqual([
      { name: 'get_weather', description: 'Weather for a city', input_schema: weather.inputSchema },
      { name: 'get_time', description: 'Time in a zone', input_schema: time.inputSchema, cache_control: { type: 'ephemeral' } },
    ])
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Weather?' }] }])
    expect(server.requests[0]!.headers['anthropic-beta']).toBe('test-beta-1')
  })

  it('omits cache breakpoints when cacheControl is false', async () => {
    const { body } = await send({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'U' },
      ],
      tools: [weather],
      providerOptions: { anthropic: { cacheControl: false } },
    })
    expect(JSON.stringify(body)).not.toContain('cache_control')
  })

  it('maps tool calls and results: tool_use in the assistant turn, tool_result blocks first in one merged user turn', async () => {
    const { body } = await send({
      messages: [
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'get_weather', args: { city: 'Paris' } },
            { type: 'tool-call', toolCallId: 'toolu_2', toolName: 'get_time', args: '{"zone":"CET"}' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'toolu_1', toolName: 'get_weather', result: { sky: 'clear' } },
            { type: 'tool-result', toolCallId: 'toolu_2', toolName: 'get_time', result: 'unknown zone', isError: true },
          ],
        },
        { role: 'user', content: 'Be brief.' },
      ],
      tools: [weather, time],
    })
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather and time in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: { zone: 'CET' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"sky":"clear"}' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'unknown zone', is_error: true },
          { type: 'text', text: 'Be brief.' },
        ],
      },
    ])
  })

  it('sends reasoning back as thinking blocks with their signature, redacted thinking as is, and drops unsigned reasoning', async () => {
    const { body } = await send({
      messages: [
        { role: 'user', content: 'Q' },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'I thought.', signature: 'sig_abc' },
            { type: 'reasoning', text: '', redacted: 'opaque_data' },
            { type: 'reasoning', text: 'from another provider' },
            { type: 'tool-call', toolCallId: 'toolu_9', toolName: 'get_weather', args: { city: 'Oslo' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_9', toolName: 'get_weather', result: 'snow' }] },
      ],
      tools: [weather],
      providerOptions: { anthropic: { thinking: { type: 'enabled', budget_tokens: 1024 } } },
    })
    expect(body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'I thought.', signature: 'sig_abc' },
      { type: 'redacted_thinking', data: 'opaque_data' },
      { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Oslo' } },
    ])
  })

  it('drops reasoning signed by another provider: an OpenAI reasoning item is not sent as a thinking block', async () => {
    // The signature @spindle/openai writes for a Responses reasoning item (a fallbackModel chain hands it over).
    const openaiSignature = 'openai-reasoning:{"id":"rs_1","encrypted_content":"gAAAAenc"}'
    const { body } = await send({
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Need weather.', signature: openaiSignature },
            { type: 'reasoning', text: '', redacted: 'other-provider:{"opaque":true}' },
            { type: 'reasoning', text: 'Mine.', signature: 'EqQBCkgIARABGAIiQL2U+/abc==' },
            { type: 'reasoning', text: '', redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
            { type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', args: { city: 'Paris' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'get_weather', result: 'sunny' }] },
      ],
      tools: [weather],
    })
    expect(body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'Mine.', signature: 'EqQBCkgIARABGAIiQL2U+/abc==' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
    ])
    expect(JSON.stringify(body)).not.toContain('openai-reasoning')
  })

  it('round-trips a streamed thinking block: the signature streamed is the signature sent back', async () => {
    server.enqueue({
      turn: {
        blocks: [
          { type: 'thinking', thinking: 'Need the weather.', signature: 'EqQBCkgIARABGAIiQL2U_roundtrip' },
          { type: 'tool_use', id: 'toolu_rt', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
    })
    const request: ModelRequest = {
      messages: [{ role: 'user', content: 'Weather in Rome?' }],
      tools: [weather],
      providerOptions: { anthropic: { thinking: { type: 'enabled', budget_tokens: 2000 } } },
    }
    const model = provider()('claude-sonnet-5')
    // Assemble the assistant message from parts, as the run loop does.
    const reasoning = { type: 'reasoning' as const, text: '', signature: undefined as string | undefined }
    let args = ''
    for await (const part of model.stream(request)) {
      if (part.type === 'reasoning-delta') {
        reasoning.text += part.delta
        if (part.signature) reasoning.signature = part.signature
      }
      if (part.type === 'tool-call-delta') args += part.argsDelta
    }
    const assistant: AssistantMessage = {
      role: 'assistant',
      content: [
        reasoning as { type: 'reasoning'; text: string; signature: string },
        { type: 'tool-call', toolCallId: 'toolu_rt', toolName: 'get_weather', args: JSON.parse(args) },
      ],
    }
    const { body } = await send({
      ...request,
      messages: [
        ...request.messages,
        assistant,
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_rt', toolName: 'get_weather', result: 'sunny' }] },
      ],
    })
    expect(body.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'Need the weather.', signature: 'EqQBCkgIARABGAIiQL2U_roundtrip' })
    expect(body.messages[2].content[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_rt', content: 'sunny' })
  })

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'any' }],
    [
      { type: 'tool', name: 'get_time' },
      { type: 'tool', name: 'get_time' },
    ],
  ] as const)('maps toolChoice %j', async (toolChoice, expected) => {
    const { body } = await send({ messages: [{ role: 'user', content: 'x' }], tools: [weather, time], toolChoice: toolChoice as ModelRequest['toolChoice'] })
    expect(body.tool_choice).toEqual(expected)
  })

  it('sends limits and sampling settings, and disable_parallel_tool_use when asked', async () => {
    const { body } = await send({
      messages: [{ role: 'user', content: 'x' }],
      tools: [weather],
      maxOutputTokens: 321,
      temperature: 0.25,
      topP: 0.9,
      stopSequences: ['###'],
      providerOptions: { anthropic: { disableParallelToolUse: true, topK: 5, userId: 'user-42' } },
    })
    expect(body).toMatchObject({ max_tokens: 321, temperature: 0.25, top_p: 0.9, top_k: 5, stop_sequences: ['###'], metadata: { user_id: 'user-42' } })
    expect(body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true })
  })

  it('defaults max_tokens to the model output limit, keeps it above the thinking budget, and drops sampling with thinking', async () => {
    expect((await send({ messages: [{ role: 'user', content: 'x' }] }, 'claude-3-5-haiku-latest')).body.max_tokens).toBe(8_192)
    const { body } = await send({
      messages: [{ role: 'user', content: 'x' }],
      maxOutputTokens: 1000,
      temperature: 0.3,
      providerOptions: { anthropic: { thinking: { type: 'enabled', budget_tokens: 2048 } } },
    })
    expect(body.max_tokens).toBeGreaterThan(2048)
    expect(body.temperature).toBeUndefined()
  })

  it('leaves thinking out of a request the API would refuse with it: a tool-use cycle whose assistant turn has no thinking block, or a forced tool', async () => {
    const thinking = { anthropic: { thinking: { type: 'enabled', budget_tokens: 2048 } } }
    const cycle = (reasoning: AssistantMessage['content']): ModelRequest['messages'] => [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [...reasoning, { type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', args: { city: 'Paris' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'get_weather', result: 'sunny' }] },
    ]
    // The turn came from OpenAI (a fallbackModel chain that moved to Anthropic mid-loop): its reasoning is dropped.
    const handedOver = await send({
      messages: cycle([{ type: 'reasoning', text: 'Need weather.', signature: 'openai-reasoning:{"id":"rs_1"}' }]),
      tools: [weather],
      temperature: 0.2,
      providerOptions: thinking,
    })
    expect(handedOver.body.messages[1].content[0].type).toBe('tool_use')
    expect(handedOver.body.thinking).toBeUndefined()
    expect(handedOver.body.temperature).toBe(0.2)
    // Anthropic's own turn, thinking block first: thinking stays on.
    const own = await send({
      messages: cycle([{ type: 'reasoning', text: 'Mine.', signature: 'EqQBCkgIARABGAIiQL2U+/abc==' }]),
      tools: [weather],
      temperature: 0.2,
      providerOptions: thinking,
    })
    expect(own.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 })
    expect(own.body.temperature).toBeUndefined()
    // A new question after a finished cycle starts a new one: thinking stays on.
    const next = await send({
      messages: [...cycle([]), { role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }] }, { role: 'user', content: 'And Oslo?' }],
      tools: [weather],
      providerOptions: thinking,
    })
    expect(next.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 })
    // A forced tool, or structured output through a tool: the API refuses thinking with tool_choice any / tool.
    for (const toolChoice of ['required', { type: 'tool', name: 'get_weather' }] satisfies Array<ModelRequest['toolChoice']>) {
      const forced = await send({ messages: [{ role: 'user', content: 'x' }], tools: [weather], toolChoice, providerOptions: thinking })
      expect(forced.body.thinking).toBeUndefined()
    }
    const structured = await send({
      messages: [{ role: 'user', content: 'x' }],
      responseFormat: { type: 'json', schema: { type: 'object', properties: { city: { type: 'string' } } } },
      providerOptions: { anthropic: { thinking: { type: 'enabled', budget_tokens: 2048 }, structuredOutput: 'tool' } },
    })
    expect(structured.body.tool_choice).toMatchObject({ type: 'tool' })
    expect(structured.body.thinking).toBeUndefined()
    expect(
      (await send({ messages: [{ role: 'user', content: 'x' }], tools: [weather], toolChoice: 'auto', providerOptions: thinking })).body.thinking,
    ).toBeDefined()
  })

  it('raises max_tokens above the thinking budget only up to the model output limit', async () => {
    const thinking = (budget_tokens: number) => ({ anthropic: { thinking: { type: 'enabled' as const, budget_tokens } } })
    const high = await send({ messages: [{ role: 'user', content: 'x' }], maxOutputTokens: 2000, providerOptions: thinking(62_000) })
    expect(high.body).toMatchObject({ max_tokens: 64_000, thinking: { budget_tokens: 62_000 } })
    const low = await send({ messages: [{ role: 'user', content: 'x' }], maxOutputTokens: 2000, providerOptions: thinking(3000) })
    expect(low.body.max_tokens).toBe(3000 + 4096)
    const opus = await send({ messages: [{ role: 'user', content: 'x' }], providerOptions: thinking(31_000) }, 'claude-opus-4-1')
    expect(opus.body.max_tokens).toBe(32_000)
  })

  it('fails before any request when the thinking budget leaves no room below the model output limit', async () => {
    const model = provider()('claude-sonnet-5', { thinking: { type: 'enabled', budget_tokens: 64_000 } })
    const consume = async () => {
      for await (const _ of model.stream({ messages: [{ role: 'user', content: 'x' }], maxOutputTokens: 2000 })) void _
    }
    const error = await consume().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ConfigurationError)
    expect((error as Error).message).toMatch(
      /^\[spindle\/anthropic\] thinking\.budget_tokens \(64000\) must be below claude-sonnet-5's output limit of 64000 tokens.*set budget_tokens to at most 63999/,
    )
    expect(server.requests).toHaveLength(0)
  })

  it('applies per-model default provider options, overridden by the request, and validates them at creation', async () => {
    const model = provider()('claude-sonnet-5', { thinking: { type: 'enabled', budget_tokens: 1500 }, cacheControl: false })
    server.enqueue({ turn: { blocks: [{ type: 'text', text: 'ok' }] } }, { turn: { blocks: [{ type: 'text', text: 'ok' }] } })
    for await (const _ of model.stream({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'x' },
      ],
    }))
      void _
    expect(server.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 1500 })
    expect(server.requests[0]!.body.system).toEqual([{ type: 'text', text: 'S' }])
    for await (const _ of model.stream({ messages: [{ role: 'user', content: 'x' }], providerOptions: { anthropic: { thinking: { type: 'disabled' } } } }))
      void _
    expect(server.requests[1]!.body.thinking).toEqual({ type: 'disabled' })
    expect(() => provider()('claude-sonnet-5', { thinking: { type: 'enabled', budget_tokens: -1 } })).toThrow(ConfigurationError)
  })

  it('sends images and PDFs as content blocks', async () => {
    const { body } = await send({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            { type: 'file', mediaType: 'application/pdf', data: 'https://example.com/a.pdf', name: 'a.pdf' },
          ],
        },
      ],
    })
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'Look' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' }, title: 'a.pdf' },
    ])
  })

  it('unpacks data: URLs (what the OpenAI APIs take) into bare base64 images, PDFs and text documents', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
    const { body } = await send({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', mediaType: 'image/png', data: `data:image/png;base64,${png}` },
            { type: 'file', mediaType: 'application/pdf', data: 'data:application/pdf;name=a.pdf;base64,JVBERi0xLjQK', name: 'a.pdf' },
            { type: 'file', mediaType: 'text/plain', data: `data:text/plain;charset=utf-8;base64,${Buffer.from('héllo').toString('base64')}` },
            { type: 'file', mediaType: 'text/plain', data: 'data:,caf%C3%A9%20au%20lait' },
          ],
        },
      ],
    })
    expect(body.messages[0].content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' }, title: 'a.pdf' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'héllo' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'café au lait' } },
    ])
  })

  it('rejects a data: URL whose media type contradicts the part, or whose payload is not base64, before any request', async () => {
    const model = provider()('claude-sonnet-5')
    const consume = async (data: string) => {
      for await (const _ of model.stream({ messages: [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data, name: 'shot.png' }] }] })) void _
    }
    await expect(consume('data:image/jpeg;base64,/9j/4AAQ')).rejects.toThrow(
      /\[spindle\/anthropic\] file part "shot.png" has mediaType "image\/png" but its data: URL says "image\/jpeg"; make them agree/,
    )
    await expect(consume('data:image/png;base64,not base64!')).rejects.toThrow(ConfigurationError)
    expect(server.requests).toHaveLength(0)
  })

  it('rejects invalid provider options and artifact references with a ConfigurationError, before any request', async () => {
    const model = provider()('claude-sonnet-5')
    const consume = async (request: ModelRequest) => {
      for await (const _ of model.stream(request)) void _
    }
    await expect(consume({ messages: [{ role: 'user', content: 'x' }], providerOptions: { anthropic: { thinking: { type: 'enabled' } } } })).rejects.toThrow(
      ConfigurationError,
    )
    await expect(consume({ messages: [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: 'artifact:abc' }] }] })).rejects.toThrow(
      /artifact reference/,
    )
    expect(server.requests).toHaveLength(0)
  })
})

describe('@spindle/anthropic provider', () => {
  it('is callable, with messages() and languageModel() returning Messages models', () => {
    const p = provider()
    for (const model of [p('claude-sonnet-5'), p.messages('claude-sonnet-5'), p.languageModel('claude-sonnet-5')]) {
      expect(model).toMatchObject({ specificationVersion: 'v1', provider: 'anthropic', modelId: 'claude-sonnet-5' })
      expect(model.capabilities).toEqual(anthropicModelCapabilities('claude-sonnet-5'))
    }
    expect(anthropic('claude-opus-4-1').capabilities.maxOutputTokens).toBe(32_000)
    expect(createAnthropic({ capabilities: { contextWindow: 1000 } })('claude-sonnet-5').capabilities.contextWindow).toBe(1000)
  })

  it('sends every request through an injected fetch', async () => {
    const seen: string[] = []
    const counting: typeof fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input))
      return fetch(input, init)
    }
    server.enqueue({ turn: { blocks: [{ type: 'text', text: 'ok' }] } })
    const model = createAnthropic({ apiKey: 'k-123456', baseURL: server.baseURL, fetch: counting })('claude-sonnet-5')
    for await (const _ of model.stream({ messages: [{ role: 'user', content: 'x' }] })) void _
    expect(seen).toEqual([`${server.baseURL}/v1/messages`])
  })

  it('registers as an Extensions plugin so "anthropic:<model>" resolves, under a custom name too', () => {
    const ext = new Extensions().use(provider()).use(createAnthropic({ name: 'claude-proxy', apiKey: 'k' }))
    const model = ext.providers.languageModel('anthropic:claude-sonnet-5')
    expect(model).toMatchObject({ provider: 'anthropic', modelId: 'claude-sonnet-5' })
    expect(ext.providers.languageModel('claude-proxy:claude-haiku-5')).toMatchObject({ provider: 'claude-proxy', modelId: 'claude-haiku-5' })
    expect(new ProviderRegistry().registerProvider('anthropic', anthropic).languageModel('anthropic:claude-sonnet-5').modelId).toBe('claude-sonnet-5')
  })
})
