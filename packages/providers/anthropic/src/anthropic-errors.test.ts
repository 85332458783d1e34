// Errors, retries, truncation, abort and timeouts: the real SDK over real HTTP against the loopback server.
import { SpindleError, type ModelRequest, type StreamPart } from '@spindle/core'
import {
  anthropicErrorBody,
  anthropicErrorEvent,
  anthropicResponse,
  anthropicStreamEvents,
  startAnthropicMessagesServer,
  type AnthropicMessagesServer,
  type RecordedRequest,
} from '@spindle/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createAnthropic, type AnthropicProviderOptions } from './index.js'

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

const apiKey = 'sk-ant-api03-SECRET-0123456789abcdef'
const model = (options: AnthropicProviderOptions = {}) =>
  createAnthropic({ apiKey, baseURL: server.baseURL, ...options, retry: { initialDelayMs: 5, maxDelayMs: 20, ...options.retry } }).messages('claude-sonnet-5')
const ask: ModelRequest = { messages: [{ role: 'user', content: 'Hello' }] }
const hello = { turn: { blocks: [{ type: 'text' as const, text: 'recovered' }] } }

interface Outcome {
  parts: StreamPart[]
  error: any
  text: string
}
/** Collects a stream; an error is either thrown or yielded as an `error` part. */
async function run(stream: AsyncIterable<StreamPart>, onPart?: (part: StreamPart) => void): Promise<Outcome> {
  const parts: StreamPart[] = []
  let error: unknown
  try {
    for await (const part of stream) {
      parts.push(part)
      if (part.type === 'error') error = part.error
      onPart?.(part)
    }
  } catch (thrown) {
    error = thrown
  }
  return { parts, error, text: parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('') }
}
const finished = (outcome: Outcome) => outcome.parts.some((part) => part.type === 'finish')

function expectNoKey(error: unknown): void {
  expect(String((error as Error).message)).not.toContain(apiKey)
  expect(JSON.stringify(error)).not.toContain(apiKey)
  expect(String(((error as Error).cause as Error | undefined)?.message ?? '')).not.toContain(apiKey)
}

describe('@spindle/anthropic errors and retries', () => {
  it('retries a 429 after its retry-after, then succeeds', async () => {
    server.enqueue({ kind: 'error', errorType: 'rate_limit_error', retryAfterSeconds: 1 }, hello)
    const outcome = await run(model().stream(ask))
    expect(outcome.error).toBeUndefined()
    expect(outcome.text).toBe('recovered')
    expect(server.requests).toHaveLength(2)
    expect(server.requests[1]!.receivedAt - server.requests[0]!.receivedAt).toBeGreaterThanOrEqual(950)
  })

  it('surfaces a 429 with retryAfterMs when retries are off', async () => {
    server.enqueue({ kind: 'error', errorType: 'rate_limit_error', retryAfterSeconds: 7 })
    const { error } = await run(model({ retry: { maxRetries: 0 } }).stream(ask))
    expect(error).toMatchObject({ name: 'ProviderError', code: 'provider', status: 429, isRetryable: true, retryAfterMs: 7000, provider: 'anthropic' })
    expect(error.message).toMatch(/^\[spindle\/anthropic\] HTTP 429 rate_limit_error: .*request-id req_loopback_\d+/)
  })

  it('does not wait for a retry-after beyond maxRetryAfterMs', async () => {
    server.enqueue({ kind: 'error', errorType: 'rate_limit_error', retryAfterSeconds: 120 }, hello)
    const started = Date.now()
    const { error } = await run(model({ retry: { maxRetryAfterMs: 1_000 } }).stream(ask))
    expect(error.retryAfterMs).toBe(120_000)
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(server.requests).toHaveLength(1)
  })

  it('retries a 500, then succeeds', async () => {
    server.enqueue({ kind: 'error', errorType: 'api_error' }, hello)
    const outcome = await run(model().stream(ask))
    expect(outcome.text).toBe('recovered')
    expect(server.requests).toHaveLength(2)
  })

  it('retries a 529 overloaded, and reports it as retryable when retries run out', async () => {
    server.enqueue({ kind: 'error', errorType: 'overloaded_error' }, hello)
    expect((await run(model().stream(ask))).text).toBe('recovered')
    server.scripted.reset()
    server.enqueue(
      { kind: 'error', errorType: 'overloaded_error' },
      { kind: 'error', errorType: 'overloaded_error' },
      { kind: 'error', errorType: 'overloaded_error' },
      hello,
    )
    const { error } = await run(model().stream(ask))
    expect(error).toMatchObject({ code: 'provider', status: 529, isRetryable: true })
    expect(error.message).toContain('overloaded')
    expect(server.requests).toHaveLength(3)
  })

  it.each([408, 409, 502, 503, 504])('retries HTTP %i', async (status) => {
    server.enqueue({ kind: 'error', errorType: 'api_error', status }, hello)
    expect((await run(model().stream(ask))).text).toBe('recovered')
    expect(server.requests).toHaveLength(2)
  })

  it('fails a 401 at once, without retry, and never echoes the key', async () => {
    server.enqueue({ kind: 'error', errorType: 'authentication_error', message: `invalid x-api-key: ${apiKey}` }, hello)
    const { error } = await run(model().stream(ask))
    expect(error).toMatchObject({ code: 'provider', status: 401, isRetryable: false })
    expect(error.message).toContain('ANTHROPIC_API_KEY')
    expect(error.message).toContain('[REDACTED]')
    expectNoKey(error)
    expect(server.requests).toHaveLength(1)
  })

  it.each([400, 403, 404])('fails HTTP %i at once', async (status) => {
    server.enqueue({ kind: 'error', errorType: 'invalid_request_error', status }, hello)
    const { error } = await run(model().stream(ask))
    expect(error).toMatchObject({ status, isRetryable: false })
    expect(server.requests).toHaveLength(1)
  })

  it('maps "prompt is too long" to ContextOverflowError', async () => {
    server.enqueue({ kind: 'error', errorType: 'invalid_request_error', message: 'prompt is too long: 212345 tokens > 200000 maximum' })
    const { error } = await run(model().stream(ask))
    expect(error).toMatchObject({ name: 'ContextOverflowError', code: 'context_overflow', status: 400, isRetryable: false })
    expect(server.requests).toHaveLength(1)
  })

  it.each([
    ['overloaded_error', 529],
    ['api_error', 500],
    ['rate_limit_error', 429],
  ] as const)('maps an in-band %s after output to status %i, keeps the text, and does not retry', async (type, status) => {
    const events = anthropicStreamEvents({ blocks: [{ type: 'text', text: ['partial ', 'answer'] }] }).slice(0, -2)
    server.enqueue({ events: [...events, anthropicErrorEvent(type)] }, hello)
    const outcome = await run(model().stream(ask))
    expect(outcome.text).toBe('partial answer')
    expect(outcome.parts.at(-1)?.type).toBe('error')
    expect(finished(outcome)).toBe(false)
    expect(outcome.error).toMatchObject({ code: 'provider', status, details: { type, inBand: true } })
    expect(outcome.error.message).toContain('in-band stream error')
    expect(server.requests).toHaveLength(1)
  })

  it('retries an in-band overloaded_error that came before any output', async () => {
    const events = anthropicStreamEvents({ blocks: [{ type: 'text', text: 'x' }] })
    server.enqueue({ events: [events[0]!, events[1]!, anthropicErrorEvent('overloaded_error')] }, hello)
    const outcome = await run(model().stream(ask))
    expect(outcome.error).toBeUndefined()
    expect(outcome.text).toBe('recovered')
    expect(outcome.parts.filter((part) => part.type === 'response-metadata')).toHaveLength(1)
    expect(server.requests).toHaveLength(2)
  })

  it('treats a stream cut before message_stop as interrupted, never a complete answer', async () => {
    server.enqueue({ turn: { blocks: [{ type: 'text', text: ['half ', 'an answer'] }] }, truncateAfter: 5 }, hello)
    const outcome = await run(model().stream(ask))
    expect(outcome.text).toBe('half an answer')
    expect(finished(outcome)).toBe(false)
    expect(outcome.error).toMatchObject({ name: 'StreamInterruptedError', code: 'stream_interrupted', isRetryable: true })
    expect(server.requests).toHaveLength(1)
  })

  it('never completes a tool call whose input was cut off', async () => {
    server.enqueue({
      turn: { blocks: [{ type: 'tool_use', id: 'toolu_cut', name: 'delete_file', inputChunks: ['{"path":"/tmp/', 'important"}'] }] },
      truncateAfter: 5,
    })
    const outcome = await run(model().stream(ask))
    expect(outcome.parts.some((part) => part.type === 'tool-call-start')).toBe(true)
    expect(outcome.parts.some((part) => part.type === 'tool-call-end')).toBe(false)
    expect(outcome.error).toMatchObject({ code: 'stream_interrupted', details: { openToolCalls: ['toolu_cut'] } })
    expect(outcome.error.message).toContain('toolu_cut')
  })

  it('treats a connection reset mid-stream as interrupted', async () => {
    server.enqueue({ turn: { blocks: [{ type: 'text', text: ['cut ', 'here'] }] }, destroyAfter: 5 })
    const outcome = await run(model().stream(ask))
    expect(finished(outcome)).toBe(false)
    expect(outcome.error).toMatchObject({ code: 'stream_interrupted', isRetryable: true })
  })

  it('honours an abort mid-stream with AbortedError and closes the connection', async () => {
    server.enqueue({ turn: { blocks: [{ type: 'text', text: ['first ', 'second'] }] }, stallAfter: 4 })
    const controller = new AbortController()
    const outcome = await run(model().stream(ask, { signal: controller.signal }), (part) => {
      if (part.type === 'text-delta') controller.abort()
    })
    expect(outcome.error).toMatchObject({ name: 'AbortedError', code: 'aborted' })
    expect(finished(outcome)).toBe(false)
    await expect.poll(() => server.requests[0]?.clientClosed).toBe(true)
  })

  it('fails at once when the signal is already aborted, and aborts a retry wait', async () => {
    const controller = new AbortController()
    controller.abort()
    expect((await run(model().stream(ask, { signal: controller.signal }))).error).toMatchObject({ code: 'aborted' })
    expect(server.requests).toHaveLength(0)
    server.enqueue({ kind: 'error', errorType: 'rate_limit_error', retryAfterSeconds: 30 }, hello)
    const waiting = new AbortController()
    setTimeout(() => waiting.abort(), 100)
    const started = Date.now()
    expect((await run(model().stream(ask, { signal: waiting.signal }))).error).toMatchObject({ code: 'aborted' })
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('waits for a slow first byte within the first-chunk timeout', async () => {
    server.enqueue({ ...hello, firstByteDelayMs: 300 })
    const outcome = await run(model({ firstChunkTimeoutMs: 3_000 }).stream(ask))
    expect(outcome.text).toBe('recovered')
  })

  it('times out a first chunk that is too late, retryably, and retries', async () => {
    server.enqueue({ ...hello, firstByteDelayMs: 2_000 })
    const started = Date.now()
    const { error } = await run(model({ firstChunkTimeoutMs: 150, retry: { maxRetries: 0 } }).stream(ask))
    expect(error).toMatchObject({ code: 'provider', isRetryable: true, details: { reason: 'first_chunk_timeout' } })
    expect(Date.now() - started).toBeLessThan(1_500)
    server.scripted.reset()
    server.enqueue({ ...hello, firstEventDelayMs: 2_000 }, hello)
    const outcome = await run(model({ firstChunkTimeoutMs: 150, retry: { maxRetries: 1 } }).stream(ask))
    expect(outcome.text).toBe('recovered')
    expect(server.requests).toHaveLength(2)
  })

  it('times out a stream silent between events', async () => {
    server.enqueue({ turn: { blocks: [{ type: 'text', text: ['start ', 'stall'] }] }, stallAfter: 5 })
    const started = Date.now()
    const outcome = await run(model({ idleTimeoutMs: 200 }).stream(ask))
    expect(outcome.text).toBe('start stall')
    expect(outcome.error).toMatchObject({ code: 'stream_interrupted', isRetryable: true, details: { reason: 'idle_timeout' } })
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('does not count the time the consumer holds a part as silence', async () => {
    // The whole answer is sent at once, more of it than the client buffers; the reader pauses on one part
    // for longer than idleTimeoutMs while the rest waits on the socket.
    server.enqueue({ turn: { blocks: [{ type: 'text', text: Array.from({ length: 2_000 }, (_, index) => `w${index} `) }] } })
    const parts: StreamPart[] = []
    for await (const part of model({ idleTimeoutMs: 100, retry: { maxRetries: 0 } }).stream(ask)) {
      parts.push(part)
      if (parts.length === 3) await new Promise((resolve) => setTimeout(resolve, 400))
    }
    expect(parts.some((part) => part.type === 'error')).toBe(false)
    expect(parts.filter((part) => part.type === 'text-delta')).toHaveLength(2_000)
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' })
  })

  it('reports a missing API key when the model is called, not when it is created', async () => {
    const saved = process.env.ANTHROPIC_API_KEY
    delete process.env.ANTHROPIC_API_KEY
    try {
      const keyless = createAnthropic({ baseURL: server.baseURL })('claude-sonnet-5')
      const { error } = await run(keyless.stream(ask))
      expect(SpindleError.isInstance(error)).toBe(true)
      expect(error).toMatchObject({ name: 'ConfigurationError', code: 'configuration' })
      expect(error.message).toContain('ANTHROPIC_API_KEY')
      expect(server.requests).toHaveLength(0)
      process.env.ANTHROPIC_API_KEY = 'sk-ant-from-env-0123456789'
      server.enqueue(hello)
      expect((await run(keyless.stream(ask))).text).toBe('recovered')
      expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-ant-from-env-0123456789')
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY
      else process.env.ANTHROPIC_API_KEY = saved
    }
  })
})

// Every error after Spindle's own retries says how many requests the call made, so the runtime does not retry it again.
describe('@spindle/anthropic attempts', () => {
  it('counts the requests behind an HTTP error, retries included', async () => {
    for (const maxRetries of [2, 0]) {
      server.scripted.reset()
      server.scripted.setHandler(() => anthropicResponse({ kind: 'error', errorType: 'api_error' }))
      const { error } = await run(model({ retry: { maxRetries } }).stream(ask))
      expect(error).toMatchObject({ code: 'provider', status: 500, attempts: 1 + maxRetries })
      expect(server.requests).toHaveLength(1 + maxRetries)
    }
    server.scripted.reset()
    server.enqueue({ kind: 'error', errorType: 'invalid_request_error' })
    expect((await run(model().stream(ask))).error).toMatchObject({ status: 400, attempts: 1 })
  })

  it('counts them on a first-chunk timeout, an in-band error after output and a stream cut before message_stop', async () => {
    server.scripted.setHandler(() => anthropicResponse({ ...hello, firstEventDelayMs: 1_000 }))
    const late = await run(model({ firstChunkTimeoutMs: 100, retry: { maxRetries: 1 } }).stream(ask))
    expect(late.error).toMatchObject({ code: 'provider', attempts: 2, details: { reason: 'first_chunk_timeout' } })

    server.scripted.reset()
    const events = anthropicStreamEvents({ blocks: [{ type: 'text', text: ['partial'] }] }).slice(0, -2)
    server.enqueue({ events: [...events, anthropicErrorEvent('overloaded_error')] })
    // After output the error is yielded, not retried: one request.
    expect((await run(model().stream(ask))).error).toMatchObject({ status: 529, attempts: 1 })

    server.scripted.reset()
    server.scripted.setHandler(() => anthropicResponse({ ...hello, truncateAfter: 1 }))
    const cut = await run(model({ retry: { maxRetries: 1 } }).stream(ask))
    expect(cut.error).toMatchObject({ code: 'stream_interrupted', attempts: 2 })
  })
})

// Credentials passed as headers (gateway keys and tokens) never reach an error, even when the server echoes them.
const gatewayKey = 'gateway-key-7777-GGGG-8888'
const callToken = 'call-token-0123456789'

/** A 401 whose message echoes the request headers, as some gateways do. */
function echoHeaders(received: RecordedRequest) {
  return { status: 401, json: anthropicErrorBody('authentication_error', `rejected headers ${JSON.stringify(received.headers)}`, 'req_echo') }
}

type MappedError = Error & { cause?: Error }

/** The error a failed stream threw or yielded. */
const failure = async (stream: AsyncIterable<StreamPart>): Promise<MappedError> => (await run(stream)).error as MappedError

function expectScrubbed(error: MappedError, ...secrets: string[]): void {
  expect(error).toMatchObject({ code: 'provider', status: 401 })
  for (const secret of secrets) {
    expect(error.message).not.toContain(secret)
    expect(JSON.stringify(error)).not.toContain(secret)
    expect(String(error.cause?.message)).not.toContain(secret)
  }
}

describe('@spindle/anthropic credential headers in errors', () => {
  it('scrubs a credential given in the provider headers', async () => {
    server.scripted.setHandler(echoHeaders)
    const model = createAnthropic({ apiKey, baseURL: server.baseURL, headers: { 'x-gateway-key': gatewayKey }, retry: { maxRetries: 0 } })('claude-sonnet-5')
    const error = await failure(model.stream(ask))
    expectScrubbed(error, gatewayKey, apiKey)
    expect(error.message).toContain('[REDACTED]')
    expect(server.requests[0]!.headers['x-gateway-key']).toBe(gatewayKey)
  })

  it('scrubs credentials given per call, and the token of an Authorization header echoed alone', async () => {
    server.scripted.setHandler((received) => ({
      status: 401,
      json: anthropicErrorBody('authentication_error', `bad token ${String(received.headers.authorization).split(' ')[1]}`, 'req_echo'),
    }))
    const model = createAnthropic({ apiKey, baseURL: server.baseURL, retry: { maxRetries: 0 } })('claude-sonnet-5')
    const error = await failure(model.stream(ask, { headers: { Authorization: `Bearer ${callToken}` } }))
    expectScrubbed(error, callToken)
    expect(error.message).toContain('bad token [REDACTED]')
  })

  it('leaves the values of other headers in messages', async () => {
    server.scripted.setHandler(echoHeaders)
    const model = createAnthropic({ apiKey, baseURL: server.baseURL, headers: { 'anthropic-beta': 'test-beta-1' }, retry: { maxRetries: 0 } })(
      'claude-sonnet-5',
    )
    const error = await failure(model.stream(ask, { headers: { 'x-request-purpose': 'nightly-eval' } }))
    expect(error.message).toContain('test-beta-1')
    expect(error.message).toContain('nightly-eval')
  })
})

describe('@spindle/anthropic credentials in the base URL', () => {
  it('scrubs the password and query-string values of the base URL from errors and their cause', async () => {
    server.scripted.setHandler((received) => ({ status: 401, json: anthropicErrorBody('authentication_error', `refused ${received.url}`, 'req_echo') }))
    const model = createAnthropic({ apiKey, baseURL: `${server.baseURL}?gateway_key=query-secret-4e5f`, retry: { maxRetries: 0 } })('claude-sonnet-5')
    expectScrubbed(await failure(model.stream(ask)), 'query-secret-4e5f')
    const port = new URL(server.baseURL).port
    // Credentials before the host are refused at creation (fetch would refuse every request), without quoting them.
    const withPassword = () => createAnthropic({ apiKey, baseURL: `http://gateway:url-password-8c1d@127.0.0.1:${port}`, retry: { maxRetries: 0 } })
    expect(withPassword).toThrow(/carries credentials before its host/)
    expect(withPassword).not.toThrow(/url-password-8c1d/)
  })
})
