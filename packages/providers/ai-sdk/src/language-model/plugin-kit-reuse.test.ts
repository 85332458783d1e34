// What fromAiSdk sends, through core's plugin-kit helpers: a tool result holding an image goes as an image part
// (`image-data` for spec v3, `media` for v2), a lone surrogate as U+FFFD, and the call's credential headers never
// show in an error. Checked on the AI SDK's own mock model and on Anthropic's provider package over a loopback server.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAnthropic } from '@ai-sdk/anthropic'
import type { LanguageModelV2, LanguageModelV2CallOptions, LanguageModelV3CallOptions } from '@ai-sdk/provider'
import type { ModelMessage } from '@spindle/core'
import { simulateReadableStream } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { fromAiSdk } from '../index.js'

const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

const withImageResult: ModelMessage[] = [
  { role: 'user', content: 'Take a screenshot' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'screenshot', args: {} }] },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call-1',
        toolName: 'screenshot',
        result: {
          content: [
            { type: 'text', text: 'The page:' },
            { type: 'image', mimeType: 'image/png', data: pixel },
          ],
        },
      },
    ],
  },
]

const finishV3 = { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } } as const

async function drain(parts: AsyncIterable<unknown>): Promise<unknown> {
  try {
    for await (const _ of parts) void _
    return undefined
  } catch (error) {
    return error
  }
}

function v3Capturing(calls: LanguageModelV3CallOptions[]) {
  return new MockLanguageModelV3({
    doStream: async (options) => {
      calls.push(options)
      return { stream: simulateReadableStream({ chunks: [finishV3 as never], chunkDelayInMs: null }) }
    },
  })
}

describe('fromAiSdk request conversion (plugin-kit helpers)', () => {
  it('a tool result holding an image goes as content with an image-data part (spec v3)', async () => {
    const calls: LanguageModelV3CallOptions[] = []
    await drain(fromAiSdk(v3Capturing(calls)).stream({ messages: withImageResult }))
    const tool = calls[0]!.prompt.find((message) => message.role === 'tool')!
    expect(tool.content[0]).toMatchObject({
      type: 'tool-result',
      output: {
        type: 'content',
        value: [
          { type: 'text', text: 'The page:' },
          { type: 'image-data', mediaType: 'image/png', data: pixel },
        ],
      },
    })
  })

  it('the same result goes with a media part to a spec v2 model', async () => {
    const calls: LanguageModelV2CallOptions[] = []
    const v2: LanguageModelV2 = {
      specificationVersion: 'v2',
      provider: 'legacy.chat',
      modelId: 'old',
      supportedUrls: {},
      doGenerate: async () => {
        throw new Error('unused')
      },
      doStream: async (options) => {
        calls.push(options)
        const finish = { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } } as const
        return { stream: simulateReadableStream({ chunks: [finish], chunkDelayInMs: null }) }
      },
    }
    await drain(fromAiSdk(v2).stream({ messages: withImageResult }))
    const tool = calls[0]!.prompt.find((message) => message.role === 'tool')!
    expect(tool.content[0]).toMatchObject({ output: { type: 'content', value: [{ type: 'text' }, { type: 'media', mediaType: 'image/png', data: pixel }] } })
  })

  it('a result without an image stays JSON, an error stays an error', async () => {
    const calls: LanguageModelV3CallOptions[] = []
    const messages: ModelMessage[] = [
      withImageResult[0]!,
      withImageResult[1]!,
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'screenshot', result: { content: [{ type: 'text', text: 'none' }] } }] },
    ]
    await drain(fromAiSdk(v3Capturing(calls)).stream({ messages }))
    expect(calls[0]!.prompt.at(-1)!.content[0]).toMatchObject({ output: { type: 'json', value: { content: [{ type: 'text', text: 'none' }] } } })
  })

  it('a lone surrogate in the prompt goes as U+FFFD; the caller’s messages are left as they were', async () => {
    const calls: LanguageModelV3CallOptions[] = []
    const messages: ModelMessage[] = [{ role: 'user', content: 'cut emoji \ud83d here' }]
    await drain(fromAiSdk(v3Capturing(calls)).stream({ messages }))
    expect(calls[0]!.prompt[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'cut emoji \ufffd here' }] })
    expect(messages[0]!.content).toBe('cut emoji \ud83d here')
  })

  it('the call’s credential headers never show in an error, even when the server echoes them', async () => {
    const server = createServer((request: IncomingMessage, response) => {
      response.writeHead(401, { 'content-type': 'application/json' })
      const echoed = `${String(request.headers['x-gateway-token'])} / ${String(request.headers['x-api-key'])}`
      response.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `bad credentials: ${echoed}` } }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const anthropic = createAnthropic({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'anthropic-key-0001' })
      const model = fromAiSdk(anthropic('claude-mock'), { maxRetries: 0, secrets: ['anthropic-key-0001'] })
      const error = await drain(model.stream({ messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-gateway-token': 'gateway-secret-9876' } }))
      expect(error).toMatchObject({ code: 'provider', status: 401 })
      const text = `${(error as Error).message} ${JSON.stringify(error)}`
      expect(text).toContain('bad credentials')
      expect(text).not.toContain('gateway-secret-9876')
      expect(text).not.toContain('anthropic-key-0001')
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
