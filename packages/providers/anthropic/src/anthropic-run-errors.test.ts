// RunOutput.error through AgentRuntime on the real Anthropic SDK against the loopback server: each provider failure
// gets its own code, with status, retryable and provider, on the output, the run record and the run.failed event.
import { AgentRuntime, type AgentEvent, Extensions } from '@spindle/core'
import { anthropicErrorEvent, anthropicStreamEvents, startAnthropicMessagesServer, type AnthropicMessagesServer, type AnthropicReply } from '@spindle/testing'
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

const apiKey = 'sk-ant-api03-RUNERRORS-0123456789abcdef'

async function failedRun(...replies: AnthropicReply[]) {
  server.enqueue(...replies)
  const provider = createAnthropic({ apiKey, baseURL: server.baseURL, retry: { maxRetries: 1, initialDelayMs: 5, maxDelayMs: 10, maxRetryAfterMs: 50 } })
  const runtime = new AgentRuntime(new Extensions().use(provider))
  const stream = runtime.stream({ agent: { name: 'a', model: provider.messages('claude-sonnet-5') }, input: 'Hello' })
  const events: AgentEvent[] = []
  for await (const event of stream) events.push(event)
  const output = await stream.result
  const record = await runtime.runs.getRun(output.runId)
  const failed = events.find((event) => event.type === 'run.failed')
  return { output, record, failed: failed?.type === 'run.failed' ? failed.error : undefined }
}

describe('RunOutput.error from the Anthropic provider', () => {
  it.each([
    ['a 401', [{ kind: 'error', errorType: 'authentication_error' }], { code: 'provider_auth', status: 401, retryable: false }],
    [
      'an exhausted 429',
      [
        { kind: 'error', errorType: 'rate_limit_error', retryAfterSeconds: 0 },
        { kind: 'error', errorType: 'rate_limit_error', retryAfterSeconds: 0 },
      ],
      { code: 'provider_rate_limit', status: 429, retryable: true },
    ],
    [
      'a 500',
      [
        { kind: 'error', errorType: 'api_error' },
        { kind: 'error', errorType: 'api_error' },
      ],
      { code: 'provider_server', status: 500, retryable: true },
    ],
    [
      'an HTTP 529 overloaded',
      [
        { kind: 'error', errorType: 'overloaded_error' },
        { kind: 'error', errorType: 'overloaded_error' },
      ],
      { code: 'provider_overloaded', status: 529, retryable: true },
    ],
    [
      'a 400',
      [{ kind: 'error', errorType: 'invalid_request_error', message: 'messages: bad role' }],
      { code: 'provider_bad_request', status: 400, retryable: false },
    ],
  ] as Array<[string, AnthropicReply[], object]>)('%s', async (_name, replies, expected) => {
    const { output, record, failed } = await failedRun(...replies)
    expect(output.finishReason).toBe('error')
    expect(output.error).toMatchObject({ ...expected, provider: 'anthropic' })
    expect(record?.error).toEqual(output.error)
    expect(record?.status).toBe('failed')
    expect(failed).toEqual(output.error)
    expect(JSON.stringify(output.error)).not.toContain(apiKey)
  })

  it('an in-band overloaded_error after output', async () => {
    const events = anthropicStreamEvents({ blocks: [{ type: 'text', text: ['partial ', 'answer'] }] }).slice(0, -2)
    const { output, failed } = await failedRun({ events: [...events, anthropicErrorEvent('overloaded_error')] })
    expect(output.error).toMatchObject({ code: 'provider_overloaded', status: 529, retryable: true, provider: 'anthropic' })
    expect(output.error?.message).toContain('in-band stream error')
    expect(failed).toEqual(output.error)
  })
})
