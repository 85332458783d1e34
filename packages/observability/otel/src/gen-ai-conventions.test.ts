// The GenAI semantic conventions (v1.41.0), attribute by attribute, with the real OpenTelemetry SDK: spans exported
// over OTLP/HTTP to a receiver on 127.0.0.1, metrics read from the SDK's metric reader.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { AgentRuntime, Extensions, fallbackModel, mockModel, ProviderError, type LanguageModel, type StreamPart } from '@spindle/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { telemetry } from './__tests__/telemetry.js'

type OtlpValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values: OtlpValue[] } }
interface OtlpSpan {
  name: string
  status?: { code?: number }
  attributes: Array<{ key: string; value: OtlpValue }>
}

function plain(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue
  if (value.boolValue !== undefined) return value.boolValue
  if (value.intValue !== undefined) return Number(value.intValue)
  if (value.doubleValue !== undefined) return value.doubleValue
  if (value.arrayValue) return value.arrayValue.values.map(plain)
  return undefined
}

describe('GenAI semantic conventions over OTLP/HTTP', () => {
  const received: OtlpSpan[] = []
  let receiver: http.Server
  let url = ''
  beforeAll(async () => {
    receiver = http.createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => (body += chunk))
      request.on('end', () => {
        const payload = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }
        for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans)
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`
  })
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())))

  async function traced(model: LanguageModel, captureContent = false) {
    received.length = 0
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url }) as never)] })
    const { histograms, plugin } = telemetry()
    // The helper's meter provider (in-memory reader), this test's tracer provider (OTLP/HTTP exporter).
    const extensions = new Extensions().use(plugin({ captureContent, tracerProvider } as never))
    const runtime = new AgentRuntime(extensions)
    const output = await runtime.run({ agent: { name: 'writer', model }, input: 'Write a haiku', sessionId: 'ses_conv' })
    await tracerProvider.forceFlush()
    return { output, histograms }
  }

  function attributesOf(name: string): Record<string, unknown> {
    const span = received.find((candidate) => candidate.name === name)
    expect(span, `span ${name} among ${received.map((candidate) => candidate.name).join(', ')}`).toBeDefined()
    return Object.fromEntries(span!.attributes.map(({ key, value }) => [key, plain(value)]))
  }

  it('a streaming chat span: gen_ai.request.stream, reasoning tokens under their registered name, no deprecated gen_ai.system', async () => {
    await traced(
      mockModel([{ text: 'Autumn moon', usage: { inputTokens: 10, outputTokens: 5, reasoningTokens: 3 } }], { provider: 'openai', modelId: 'gpt-4o' }),
    )
    const chat = attributesOf('chat gpt-4o')
    expect(chat['gen_ai.request.stream']).toBe(true)
    expect(chat['gen_ai.operation.name']).toBe('chat')
    expect(chat['gen_ai.provider.name']).toBe('openai')
    expect(chat['gen_ai.request.model']).toBe('gpt-4o')
    expect(chat['gen_ai.usage.input_tokens']).toBe(10)
    expect(chat['gen_ai.usage.output_tokens']).toBe(5)
    expect(chat['gen_ai.usage.reasoning.output_tokens']).toBe(3)
    for (const span of received) {
      const keys = span.attributes.map(({ key }) => key)
      expect(keys, span.name).not.toContain('gen_ai.system')
      expect(keys, span.name).not.toContain('spindle.usage.reasoning_tokens')
    }
  })

  it('a failed model call: ERROR status and error.type on the chat span, a duration point with error.type, no token usage', async () => {
    const failing = mockModel([{ error: new ProviderError('[test] the provider is down', { isRetryable: false }) }], { provider: 'openai', modelId: 'gpt-4o' })
    const { output, histograms } = await traced(failing)
    expect(output.finishReason).toBe('error')
    const span = received.find((candidate) => candidate.name === 'chat gpt-4o')!
    expect(span.status?.code).toBe(2) // STATUS_CODE_ERROR
    const chat = attributesOf('chat gpt-4o')
    expect(chat['error.type']).toBe('provider')
    expect(chat).not.toHaveProperty('gen_ai.usage.input_tokens')
    const metrics = await histograms()
    const duration = metrics.get('gen_ai.client.operation.duration')!
    expect(duration.dataPoints.map((point) => point.attributes['error.type'])).toEqual(['provider'])
    expect(metrics.get('gen_ai.client.token.usage')?.dataPoints ?? []).toEqual([])
  })

  it('advises the bucket boundaries of the conventions on both histograms', async () => {
    const { histograms } = await traced(mockModel([{ text: 'ok', usage: { inputTokens: 3, outputTokens: 2 } }], { provider: 'openai', modelId: 'gpt-4o' }))
    const metrics = await histograms()
    expect(metrics.get('gen_ai.client.operation.duration')!.dataPoints[0]!.value.buckets.boundaries).toEqual([
      0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
    ])
    expect(metrics.get('gen_ai.client.token.usage')!.dataPoints[0]!.value.buckets.boundaries).toEqual([
      1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
    ])
  })

  it('captured messages follow the JSON schemas: input messages with parts, output messages with finish_reason', async () => {
    await traced(mockModel([{ text: 'Autumn moon', usage: { inputTokens: 1, outputTokens: 1 } }], { provider: 'openai', modelId: 'gpt-4o' }), true)
    const agent = attributesOf('invoke_agent writer')
    expect(JSON.parse(agent['gen_ai.input.messages'] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Write a haiku' }] }])
    expect(JSON.parse(agent['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Autumn moon' }], finish_reason: 'stop' },
    ])
    const chat = attributesOf('chat gpt-4o')
    expect(JSON.parse(chat['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Autumn moon' }], finish_reason: 'stop' },
    ])
  })

  it('gen_ai.response.model is the model the provider says answered, not the requested one', async () => {
    // A provider answering an alias with a dated snapshot reports it in its response metadata.
    const aliased: LanguageModel = {
      specificationVersion: 'v1',
      provider: 'openai',
      modelId: 'gpt-4o',
      capabilities: mockModel([]).capabilities,
      async *stream(): AsyncIterable<StreamPart> {
        yield { type: 'response-metadata', id: 'resp_1', modelId: 'gpt-4o-2024-08-06' }
        yield { type: 'text-delta', delta: 'Autumn moon' }
        yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 4, outputTokens: 2 } }
      },
    }
    const { histograms } = await traced(aliased)
    const chat = attributesOf('chat gpt-4o')
    expect(chat['gen_ai.request.model']).toBe('gpt-4o')
    expect(chat['gen_ai.response.model']).toBe('gpt-4o-2024-08-06')
    const metrics = await histograms()
    expect(metrics.get('gen_ai.client.operation.duration')!.dataPoints[0]!.attributes['gen_ai.response.model']).toBe('gpt-4o-2024-08-06')
  })

  it('a fallback chain: the chat span names the provider and model that answered, not the chain', async () => {
    const down = mockModel([{ error: new ProviderError('[test] overloaded', { isRetryable: true }) }], { provider: 'openai', modelId: 'gpt-4o' })
    const backup = mockModel([{ text: 'Autumn moon', usage: { inputTokens: 4, outputTokens: 2 } }], { provider: 'anthropic', modelId: 'claude-backup' })
    const { output, histograms } = await traced(fallbackModel([down, backup]))
    expect(output.text).toBe('Autumn moon')
    const chat = attributesOf('chat claude-backup')
    expect(chat['gen_ai.provider.name']).toBe('anthropic')
    expect(chat['gen_ai.request.model']).toBe('claude-backup')
    expect(chat['gen_ai.response.model']).toBe('claude-backup')
    expect(received.map((span) => span.name).filter((name) => name.includes('>'))).toEqual([])
    const point = (await histograms()).get('gen_ai.client.operation.duration')!.dataPoints[0]!
    expect(point.attributes['gen_ai.provider.name']).toBe('anthropic')
  })
})
