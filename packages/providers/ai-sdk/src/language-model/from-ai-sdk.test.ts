// fromAiSdk with the AI SDK's own mock model (ai/test): a whole Spindle run — reasoning signatures sent back on the
// next call, tool calls, usage, provider metadata — plus spec v2 models, tools, embeddings and the registry plugin.
import type { LanguageModelV2, LanguageModelV2StreamPart, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { AgentRuntime, ConfigurationError, Extensions, ProviderError } from '@spindle/core'
import { jsonSchema, simulateReadableStream, tool } from 'ai'
import { MockEmbeddingModelV3, MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { aiSdkProvider, fromAiSdk, fromAiSdkEmbedding, fromAiSdkTool, type AiSdkCallMetadata } from '../index.js'

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 2 },
})

function streamOf(parts: LanguageModelV3StreamPart[]) {
  return { stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: null }) }
}

const toolTurn: LanguageModelV3StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'response-metadata', id: 'resp-1', modelId: 'mock-served' },
  { type: 'reasoning-start', id: 'r1' },
  { type: 'reasoning-delta', id: 'r1', delta: 'I should add.' },
  { type: 'reasoning-delta', id: 'r1', delta: '', providerMetadata: { anthropic: { signature: 'sig-abc' } } },
  { type: 'reasoning-end', id: 'r1' },
  { type: 'tool-input-start', id: 'call-1', toolName: 'add' },
  { type: 'tool-input-delta', id: 'call-1', delta: '{"a":2,' },
  { type: 'tool-input-delta', id: 'call-1', delta: '"b":3}' },
  { type: 'tool-input-end', id: 'call-1' },
  { type: 'tool-call', toolCallId: 'call-1', toolName: 'add', input: '{"a":2,"b":3}' },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage: usage(10, 5) },
]

const answerTurn: LanguageModelV3StreamPart[] = [
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: '2 + 3 ' },
  { type: 'text-delta', id: 't1', delta: '= 5' },
  { type: 'text-end', id: 't1' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage: usage(20, 4), providerMetadata: { anthropic: { cacheCreationInputTokens: 7 } } },
]

const add = tool({
  description: 'Adds two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => ({ sum: a + b }),
})

describe('fromAiSdk with MockLanguageModelV3', () => {
  it('runs an agent: tool call, reasoning signature sent back on the next call, usage and provider metadata', async () => {
    const turns = [toolTurn, answerTurn]
    const mock = new MockLanguageModelV3({ provider: 'anthropic.messages', modelId: 'claude-mock', doStream: async () => streamOf(turns.shift()!) })
    const metadata: AiSdkCallMetadata[] = []
    const model = fromAiSdk(mock, { onMetadata: (entry) => metadata.push(entry) })
    expect(model.provider).toBe('anthropic')
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 4 })
    const output = await runtime.run({ agent: { name: 'calc', model, tools: { add: fromAiSdkTool(add) } }, input: 'What is 2 + 3?' })
    expect(output.finishReason).toBe('stop')
    expect(output.text).toBe('2 + 3 = 5')
    expect(output.usage).toMatchObject({ inputTokens: 30, outputTokens: 9 })
    expect(mock.doStreamCalls).toHaveLength(2)
    const second = mock.doStreamCalls[1]!
    const assistant = second.prompt.find((message) => message.role === 'assistant')!
    expect(assistant.content).toEqual([
      { type: 'reasoning', text: 'I should add.', providerOptions: { anthropic: { signature: 'sig-abc' } } },
      { type: 'tool-call', toolCallId: 'call-1', toolName: 'add', input: { a: 2, b: 3 } },
    ])
    const toolMessage = second.prompt.find((message) => message.role === 'tool')!
    expect(toolMessage.content).toEqual([{ type: 'tool-result', toolCallId: 'call-1', toolName: 'add', output: { type: 'json', value: { sum: 5 } } }])
    expect(second.tools?.[0]).toMatchObject({ type: 'function', name: 'add', description: 'Adds two numbers' })
    expect(metadata.at(-1)?.providerMetadata).toEqual({ anthropic: { cacheCreationInputTokens: 7 } })
    expect(metadata[0]?.rawFinishReason).toBe('tool_use')
  })

  it('maps an APICallError thrown by doStream to a typed ProviderError with status and Retry-After', async () => {
    const { APICallError } = await import('@ai-sdk/provider')
    const mock = new MockLanguageModelV3({
      doStream: async () => {
        throw new APICallError({
          message: 'Slow down sk-live-0123456789abcdefghij',
          url: 'http://x',
          requestBodyValues: {},
          statusCode: 429,
          responseHeaders: { 'retry-after': '3' },
          isRetryable: true,
        })
      },
    })
    const parts = fromAiSdk(mock, { maxRetries: 0 }).stream({ messages: [{ role: 'user', content: 'hi' }] })
    const error = await (async () => {
      for await (const _ of parts) void _
    })().catch((caught: unknown) => caught)
    expect(ProviderError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ status: 429, isRetryable: true, retryAfterMs: 3_000, code: 'provider' })
    expect(String((error as Error).message)).not.toContain('sk-live-0123456789abcdefghij')
  })

  it('asks for approval when the AI SDK tool says needsApproval', async () => {
    const mock = new MockLanguageModelV3({ doStream: async () => streamOf(toolTurn) })
    const guarded = tool({
      description: 'Adds',
      inputSchema: jsonSchema<{ a: number; b: number }>({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } }),
      needsApproval: true,
      execute: async () => 'never',
    })
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 4 })
    const output = await runtime.run({ agent: { name: 'calc', model: fromAiSdk(mock), tools: { add: fromAiSdkTool(guarded) } }, input: 'add' })
    expect(output.finishReason).toBe('awaiting_approval')
  })

  it('refuses what is not an AI SDK model or tool with a ConfigurationError', () => {
    expect(() => fromAiSdk({} as never)).toThrow(ConfigurationError)
    expect(() => fromAiSdk({ specificationVersion: 'v1', doStream() {} } as never)).toThrow(/v3/)
    expect(() => fromAiSdkTool({ inputSchema: z.object({}) } as never)).toThrow(/execute/)
  })
})

describe('fromAiSdk with a spec v2 model', () => {
  it('reads v2 finish reasons and flat usage', async () => {
    const parts: LanguageModelV2StreamPart[] = [
      { type: 'text-delta', id: 't', delta: 'hi' },
      { type: 'finish', finishReason: 'unknown', usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4, cachedInputTokens: 2 } },
    ]
    const v2: LanguageModelV2 = {
      specificationVersion: 'v2',
      provider: 'legacy.chat',
      modelId: 'old',
      supportedUrls: {},
      doGenerate: async () => {
        throw new Error('unused')
      },
      doStream: async () => ({ stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: null }) }),
    }
    const collected = []
    for await (const part of fromAiSdk(v2).stream({ messages: [{ role: 'user', content: 'hi' }] })) collected.push(part)
    expect(collected).toEqual([
      { type: 'text-delta', delta: 'hi' },
      { type: 'finish', finishReason: 'other', usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4, cachedInputTokens: 2 } },
    ])
  })
})

describe('aiSdkProvider and fromAiSdkEmbedding', () => {
  it('resolves "name:model" ids through a registered AI SDK provider', async () => {
    const created: string[] = []
    const provider = (modelId: string) => {
      created.push(modelId)
      return new MockLanguageModelV3({ provider: 'google.generative-ai', modelId, doStream: async () => streamOf(answerTurn) })
    }
    const extensions = new Extensions().use(aiSdkProvider('google', provider))
    const runtime = new AgentRuntime(extensions, { maxSteps: 2 })
    const output = await runtime.run({ agent: { name: 'gem', model: 'google:gemini-2.5-flash' }, input: 'Hello' })
    expect(output.text).toBe('2 + 3 = 5')
    expect(created).toEqual(['gemini-2.5-flash'])
    expect(runtime.providers.languageModel('google:gemini-2.5-pro').provider).toBe('google')
  })

  it('embeds in batches of the model limit and reports usage', async () => {
    const mock = new MockEmbeddingModelV3({
      maxEmbeddingsPerCall: 2,
      doEmbed: async ({ values }) => ({ embeddings: values.map((value) => [value.length, 1]), usage: { tokens: values.length }, warnings: [] }),
    })
    const model = fromAiSdkEmbedding(mock, { dimensions: 2 })
    const result = await model.embed(['a', 'bb', 'ccc'])
    expect(result.embeddings).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ])
    expect(result.usage).toEqual({ tokens: 3 })
    expect(mock.doEmbedCalls).toHaveLength(2)
  })
})
