// OpenAI-specific error paths over real HTTP: retry headers, in-band variants, quota, key redaction, broken connections.
import {
  collectStream,
  openaiChatEvents,
  openaiChatWire,
  openaiHttpError,
  openaiResponsesEvents,
  openaiResponsesWire,
  startScriptedServer,
  type RecordedRequest,
  type ScriptedServer,
} from '@spindle/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createOpenAI } from '../index.js'

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
})

const apiKey = 'sk-proj-VERYSECRET-abcdef123456'
const provider = (maxRetries = 2, extra: Parameters<typeof createOpenAI>[0] = {}) =>
  createOpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries, retry: { initialDelayMs: 5 }, ...extra })
const request = { messages: [{ role: 'user' as const, content: 'Hi' }] }
const responsesTurn = (text: string) => ({ events: openaiResponsesEvents({ text: [text] }) })
const errorOf = (value: unknown) => value as { code: string; status?: number; isRetryable: boolean; retryAfterMs?: number; message: string }

describe('retry headers', () => {
  it('honours retry-after-ms', async () => {
    server.enqueue({ ...openaiHttpError({ kind: 'rate_limit', status: 429, message: 'slow', retryAfterMs: 250 }) }, responsesTurn('ok'))
    const collected = await collectStream(provider().responses('gpt-test').stream(request))
    expect(collected.error).toBeUndefined()
    expect(server.requests[1]!.receivedAt - server.requests[0]!.receivedAt).toBeGreaterThanOrEqual(230)
  })

  it('surfaces a Retry-After longer than maxRetryAfterMs instead of waiting', async () => {
    server.enqueue(openaiHttpError({ kind: 'rate_limit', status: 429, message: 'slow', retryAfterSeconds: 120 }), responsesTurn('never'))
    const collected = await collectStream(
      provider(2, { retry: { maxRetryAfterMs: 1_000 } })
        .responses('gpt-test')
        .stream(request),
    )
    expect(errorOf(collected.error)).toMatchObject({ code: 'provider', status: 429, retryAfterMs: 120_000, isRetryable: true })
    expect(server.requests).toHaveLength(1)
  })

  it('does not retry insufficient_quota (a 429 that waiting does not fix)', async () => {
    server.enqueue(
      { status: 429, json: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota', param: null } } },
      responsesTurn('never'),
    )
    const collected = await collectStream(provider().responses('gpt-test').stream(request))
    expect(errorOf(collected.error)).toMatchObject({ status: 429, isRetryable: false })
    expect(server.requests).toHaveLength(1)
  })

  it('obeys x-should-retry: false', async () => {
    server.enqueue({ ...openaiHttpError({ kind: 'server', status: 503, message: 'down' }), headers: { 'x-should-retry': 'false' } }, responsesTurn('never'))
    const collected = await collectStream(provider().responses('gpt-test').stream(request))
    expect(errorOf(collected.error)).toMatchObject({ status: 503, isRetryable: false })
    expect(server.requests).toHaveLength(1)
  })

  it('retries 408 and 409', async () => {
    server.enqueue(
      openaiHttpError({ kind: 'server', status: 408, message: 'timeout' }),
      openaiHttpError({ kind: 'server', status: 409, message: 'conflict' }),
      responsesTurn('third time'),
    )
    const collected = await collectStream(provider().responses('gpt-test').stream(request))
    expect(collected.text).toBe('third time')
    expect(server.requests).toHaveLength(3)
  })

  it('fails 400 and 403 at once', async () => {
    for (const status of [400, 403]) {
      server.reset()
      server.enqueue(openaiHttpError({ kind: 'invalid_request', status, message: 'nope' }), responsesTurn('never'))
      const collected = await collectStream(provider().responses('gpt-test').stream(request))
      expect(errorOf(collected.error)).toMatchObject({ code: 'provider', status, isRetryable: false })
      expect(server.requests).toHaveLength(1)
    }
  })

  it('retries a refused connection, then reports it as retryable', async () => {
    const closed = await startScriptedServer()
    const url = closed.url
    await closed.close()
    const collected = await collectStream(
      createOpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 1, retry: { initialDelayMs: 5 } })
        .responses('gpt-test')
        .stream(request),
    )
    expect(errorOf(collected.error)).toMatchObject({ code: 'provider', isRetryable: true })
    expect(errorOf(collected.error).message).toMatch(/could not reach the API/)
  })
})

describe('in-band errors', () => {
  it('maps response.failed to a provider error with its status', async () => {
    const events = openaiResponsesEvents({ text: ['x'], truncate: 'before-finish' }).slice(0, 2)
    events.push({
      event: 'response.failed',
      data: {
        type: 'response.failed',
        sequence_number: 2,
        response: {
          id: 'resp_1',
          status: 'failed',
          model: 'gpt-test',
          output: [],
          error: { code: 'rate_limit_exceeded', message: 'Too many tokens' },
          usage: null,
        },
      },
    })
    server.enqueue({ events }, responsesTurn('after retry'))
    // Nothing but metadata was yielded, so the retryable failure is retried.
    const collected = await collectStream(provider().responses('gpt-test').stream(request))
    expect(collected.text).toBe('after retry')
    expect(server.requests).toHaveLength(2)
  })

  it('maps a Responses error event carrying context_length_exceeded to ContextOverflowError', async () => {
    const events = openaiResponsesEvents({ text: ['x'], truncate: 'before-finish' }).slice(0, 2)
    events.push({
      event: 'error',
      data: {
        type: 'error',
        sequence_number: 2,
        code: 'context_length_exceeded',
        message: 'Your input exceeds the context window of this model.',
        param: 'input',
      },
    })
    server.enqueue({ events })
    const collected = await collectStream(provider().responses('gpt-test').stream(request))
    expect(errorOf(collected.error)).toMatchObject({ code: 'context_overflow', status: 400, isRetryable: false })
  })

  it('reads an error event whose fields are nested under `error`', async () => {
    const events = openaiResponsesEvents({ text: ['partial'], truncate: 'before-finish' })
    events.push({
      event: 'error',
      data: { type: 'error', sequence_number: 99, error: { type: 'server_error', code: 'server_is_overloaded', message: 'Overloaded' } },
    })
    server.enqueue({ events })
    const collected = await collectStream(provider().responses('gpt-test').stream(request))
    expect(collected.text).toBe('partial')
    expect(errorOf(collected.error)).toMatchObject({ code: 'provider', status: 503, isRetryable: true })
    expect(collected.parts.at(-1)?.type).toBe('error')
  })

  it('maps a Chat Completions in-band rate limit to 429 and redacts the key', async () => {
    const events = openaiChatEvents({ text: ['par'], truncate: 'before-finish' })
    events.push({ data: { error: { message: `Rate limit for key ${apiKey}`, type: 'requests', code: 'rate_limit_exceeded', param: null } } })
    server.enqueue({ events })
    const collected = await collectStream(provider().chat('gpt-test').stream(request))
    const error = errorOf(collected.error)
    expect(error).toMatchObject({ code: 'provider', status: 429, isRetryable: true })
    expect(error.message).not.toContain(apiKey)
    expect(String((collected.error as Error).cause && ((collected.error as Error).cause as Error).message)).not.toContain(apiKey)
    expect(server.requests).toHaveLength(1)
  })

  it('maps a chat context-length 400 to ContextOverflowError', async () => {
    server.enqueue({
      status: 400,
      json: {
        error: {
          message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
          type: 'invalid_request_error',
          param: 'messages',
          code: null,
        },
      },
    })
    const collected = await collectStream(provider().chat('gpt-test').stream(request))
    expect(errorOf(collected.error)).toMatchObject({ code: 'context_overflow', status: 400 })
  })
})

describe('broken connections', () => {
  const wires = [
    { api: 'responses' as const, wire: openaiResponsesWire },
    { api: 'chat' as const, wire: openaiChatWire },
  ]

  for (const { api, wire } of wires) {
    it(`maps a socket reset after output to StreamInterruptedError, and does not retry (${api})`, async () => {
      server.enqueue(
        { ...wire.streamTurn({ text: ['half ', 'an answer'], truncate: 'before-finish' }), ending: 'destroy' },
        wire.streamTurn({ text: ['never'] }),
      )
      const collected = await collectStream(provider()[api]('gpt-test').stream(request))
      expect(collected.text).toBe('half an answer')
      expect(collected.parts.some((part) => part.type === 'finish')).toBe(false)
      expect(collected.parts.at(-1)?.type).toBe('error')
      expect(collected.error).toMatchObject({ name: 'StreamInterruptedError', code: 'stream_interrupted', isRetryable: true })
      expect(errorOf(collected.error).message).toMatch(/broke mid-stream/)
      expect(server.requests).toHaveLength(1)
    })

    it(`keeps a socket reset before the first event a retryable provider error, and retries it (${api})`, async () => {
      // Headers arrive, then the socket is reset before any event: the stream never started.
      server.enqueue({ events: [], ending: 'destroy' }, { events: [], ending: 'destroy' })
      const failed = await collectStream(provider(1)[api]('gpt-test').stream(request))
      expect(failed.error).toMatchObject({ code: 'provider', isRetryable: true })
      expect(failed.parts.some((part) => part.type === 'error')).toBe(false)
      expect(server.requests).toHaveLength(2)

      server.reset()
      server.enqueue({ events: [], ending: 'destroy' }, wire.streamTurn({ text: ['second try'] }))
      const retried = await collectStream(provider(1)[api]('gpt-test').stream(request))
      expect(retried.error).toBeUndefined()
      expect(retried.text).toBe('second try')
      expect(server.requests).toHaveLength(2)
    })
  }

  it('retries a reset that came after response.created only (no output was yielded yet)', async () => {
    const created = openaiResponsesEvents({ text: ['x'], truncate: 'before-finish' }).slice(0, 1)
    server.enqueue({ events: created, ending: 'destroy' }, responsesTurn('recovered'))
    const collected = await collectStream(provider().responses('gpt-test').stream(request))
    expect(collected.error).toBeUndefined()
    expect(collected.text).toBe('recovered')
    expect(server.requests).toHaveLength(2)
  })
})

describe('response metadata across retries', () => {
  it('yields one response-metadata part when an attempt fails or breaks after response.created and is retried', async () => {
    const created = openaiResponsesEvents({ text: ['x'], truncate: 'before-finish' }).slice(0, 1)
    const failed = {
      event: 'response.failed',
      data: {
        type: 'response.failed',
        sequence_number: 1,
        response: { id: 'resp_1', status: 'failed', model: 'gpt-test', output: [], error: { code: 'server_error', message: 'The model failed' }, usage: null },
      },
    }
    for (const first of [{ events: [...created, failed] }, { events: created, ending: 'destroy' as const }]) {
      server.reset()
      server.enqueue(first, responsesTurn('recovered'))
      const collected = await collectStream(provider().responses('gpt-test').stream(request))
      expect(collected.error).toBeUndefined()
      expect(collected.text).toBe('recovered')
      expect(server.requests).toHaveLength(2)
      expect(collected.parts.filter((part) => part.type === 'response-metadata')).toHaveLength(1)
      expect(collected.parts[0]?.type).toBe('response-metadata')
    }
  })
})

// Every error after Spindle's own retries says how many requests the call made, so the runtime does not retry it again.
describe('attempts', () => {
  const attemptsOf = (error: unknown) => (error as { attempts?: number }).attempts

  it('counts the requests behind an HTTP error, retries included', async () => {
    for (const [maxRetries, api] of [
      [2, 'responses'],
      [0, 'chat'],
    ] as const) {
      server.reset()
      server.setHandler(() => openaiHttpError({ kind: 'server', status: 500, message: 'boom' }))
      const collected = await collectStream(provider(maxRetries)[api]('gpt-test').stream(request))
      expect(collected.error).toMatchObject({ code: 'provider', status: 500, attempts: 1 + maxRetries })
      expect(server.requests).toHaveLength(1 + maxRetries)
    }
    server.reset()
    server.enqueue(openaiHttpError({ kind: 'invalid_request', status: 400, message: 'nope' }))
    expect(attemptsOf((await collectStream(provider().responses('gpt-test').stream(request))).error)).toBe(1)
  })

  it('counts them on a first-chunk timeout, an in-band error and a stream that ends without its terminal event', async () => {
    server.setHandler(() => ({ ...responsesTurn('late'), firstEventDelayMs: 1_000 }))
    const late = await collectStream(
      provider(1, { timeouts: { firstChunkMs: 100 } })
        .responses('gpt-test')
        .stream(request),
    )
    expect(late.error).toMatchObject({ code: 'provider', attempts: 2 })
    expect(String((late.error as Error).message)).toMatch(/first-chunk timeout/)

    server.reset()
    const inBand = openaiChatEvents({ text: ['par'], truncate: 'before-finish' })
    inBand.push({ data: { error: { message: 'overloaded', type: 'server_error', code: 'server_is_overloaded', param: null } } })
    server.enqueue({ events: inBand })
    // After output the error is yielded, not retried: one request.
    expect((await collectStream(provider().chat('gpt-test').stream(request))).error).toMatchObject({ status: 503, attempts: 1 })

    server.reset()
    server.setHandler(() => ({ events: openaiResponsesEvents({ text: ['x'], truncate: 'before-finish' }).slice(0, 1) }))
    const cut = await collectStream(provider(1).responses('gpt-test').stream(request))
    expect(cut.error).toMatchObject({ code: 'stream_interrupted', attempts: 2 })
  })
})

// Credentials passed as headers (Azure `api-key`, gateway tokens) never reach an error, even when the server echoes them.
const azureKey = 'azurehdr-5555-EEEE-6666-FFFF'
const callToken = 'gw-call-token-0123456789'

/** A 401 whose message echoes every request header, as some gateways do. */
function echoHeaders(received: RecordedRequest) {
  return {
    status: 401,
    json: { error: { message: `Access denied for headers ${JSON.stringify(received.headers)}`, type: 'invalid_request_error', code: '401' } },
  }
}

function expectScrubbed(error: unknown, ...secrets: string[]): void {
  expect(error).toMatchObject({ code: 'provider', status: 401 })
  const cause = (error as Error).cause as Error & { error?: unknown }
  for (const secret of secrets) {
    expect((error as Error).message).not.toContain(secret)
    expect(JSON.stringify(error)).not.toContain(secret)
    expect(String(cause?.message)).not.toContain(secret)
    expect(JSON.stringify(cause?.error ?? null)).not.toContain(secret)
  }
}

describe('credential headers in errors', () => {
  it('scrubs a credential given in the provider headers from Responses, Chat and embedding errors', async () => {
    server.setHandler(echoHeaders)
    const provider = createOpenAI({
      name: 'azure',
      apiKey: 'unused-but-required',
      baseURL: `${server.url}/v1`,
      headers: { 'api-key': azureKey },
      maxRetries: 0,
    })
    const responses = await collectStream(provider.responses('gpt-test').stream(request))
    const chat = await collectStream(provider.chat('gpt-test').stream(request))
    const embedding = await provider
      .embedding('e')
      .embed(['a'])
      .catch((caught: unknown) => caught)
    for (const error of [responses.error, chat.error, embedding]) {
      expectScrubbed(error, azureKey, 'unused-but-required')
      expect((error as Error).message).toContain('[REDACTED]')
    }
    expect(server.requests.every((received) => received.headers['api-key'] === azureKey)).toBe(true)
  })

  it('scrubs credentials given per call, and the token of an Authorization header echoed alone', async () => {
    server.setHandler((received) => ({
      status: 401,
      json: {
        error: {
          message: `bad token ${String(received.headers['x-gateway-token'])}; proxy credentials ${String(received.headers['proxy-authorization']).split(' ')[1]}`,
          type: 'invalid_request_error',
        },
      },
    }))
    const provider = createOpenAI({
      apiKey: 'sk-x-123456',
      baseURL: `${server.url}/v1`,
      headers: { 'Proxy-Authorization': 'Basic cHJveHk6c2VjcmV0cGFzcw==' },
      maxRetries: 0,
    })
    const collected = await collectStream(provider.chat('gpt-test').stream(request, { headers: { 'X-Gateway-Token': callToken } }))
    expectScrubbed(collected.error, callToken, 'cHJveHk6c2VjcmV0cGFzcw==')
    expect((collected.error as Error).message).toBe(
      '[spindle/openai] HTTP 401: bad token [REDACTED]; proxy credentials [REDACTED] — check the API key (apiKey option or OPENAI_API_KEY).',
    )
  })

  it('leaves the values of other headers in messages', async () => {
    server.setHandler(echoHeaders)
    const provider = createOpenAI({ apiKey: 'sk-x-123456', baseURL: `${server.url}/v1`, headers: { 'x-team': 'spindle-platform' }, maxRetries: 0 })
    const collected = await collectStream(provider.responses('gpt-test').stream(request, { headers: { 'x-request-purpose': 'nightly-eval' } }))
    expect((collected.error as Error).message).toContain('spindle-platform')
    expect((collected.error as Error).message).toContain('nightly-eval')
  })

  it('still streams normally with credential headers set', async () => {
    server.enqueue(openaiResponsesWire.streamTurn({ text: ['ok'] }))
    const provider = createOpenAI({ apiKey: 'sk-x-123456', baseURL: `${server.url}/v1`, headers: { 'api-key': azureKey } })
    expect((await collectStream(provider.responses('gpt-test').stream(request))).text).toBe('ok')
  })
})

describe('credentials in the base URL', () => {
  /** Every message and stack in an error's `cause` chain. */
  const chain = (error: unknown): string => {
    const parts: string[] = []
    for (let current = error as Error | undefined, depth = 0; current && depth < 10; current = current.cause as Error | undefined, depth++)
      parts.push(`${current.message}\n${current.stack ?? ''}`)
    return parts.join('\n')
  }

  it('refuses a password in the base URL at creation (fetch would refuse every request), without quoting it', () => {
    const port = new URL(server.url).port
    const create = () => createOpenAI({ apiKey: 'sk-x-123456', baseURL: `http://gateway:url-password-8c1d@127.0.0.1:${port}/v1`, maxRetries: 0 })
    expect(create).toThrow(/carries credentials before its host/)
    expect(create).not.toThrow(/url-password-8c1d/)
  })

  it('scrubs query-string values of the base URL that a server echoes', async () => {
    server.setHandler((received) => ({ status: 401, json: { error: { message: `refused ${received.url}`, type: 'invalid_request_error' } } }))
    const provider = createOpenAI({ apiKey: 'sk-x-123456', baseURL: `${server.url}/v1?gateway_key=query-secret-4e5f`, maxRetries: 0 })
    const collected = await collectStream(provider.chat('gpt-test').stream(request))
    expect(collected.error).toMatchObject({ code: 'provider', status: 401 })
    expect(chain(collected.error)).not.toContain('query-secret-4e5f')
    expect(JSON.stringify(collected.error)).not.toContain('query-secret-4e5f')
  })
})
