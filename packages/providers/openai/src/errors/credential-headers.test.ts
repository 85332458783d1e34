// Credentials passed as headers (Azure `api-key`, gateway tokens) never reach an error, even when the
// server echoes them: the real openai SDK over real HTTP, plus the header classification itself.
import { collectStream, openaiResponsesWire, startScriptedServer, type RecordedRequest, type ScriptedServer } from '@spindle/testing'
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

const request = { messages: [{ role: 'user' as const, content: 'Hi' }] }
const azureKey = 'azurehdr-5555-EEEE-6666-FFFF'
const callToken = 'gw-call-token-0123456789'

/** A 401 whose message echoes every request header, as some gateways do. */
function echoHeaders(received: RecordedRequest) {
  return { status: 401, json: { error: { message: `Access denied for headers ${JSON.stringify(received.headers)}`, type: 'invalid_request_error', code: '401' } } }
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
    const provider = createOpenAI({ name: 'azure', apiKey: 'unused-but-required', baseURL: `${server.url}/v1`, headers: { 'api-key': azureKey }, maxRetries: 0 })
    const responses = await collectStream(provider.responses('gpt-test').stream(request))
    const chat = await collectStream(provider.chat('gpt-test').stream(request))
    const embedding = await provider
      .embedding('e')
      .embed(['a'])
      .catch((caught: unknown) => caught)
    for (const error of [responses.error, chat.error, embedding]) {
      expectScrubbed(error, azureKey, 'unused-but-required')
      expect((error as Error).message).toContain('***')
    }
    expect(server.requests.every((received) => received.headers['api-key'] === azureKey)).toBe(true)
  })

  it('scrubs credentials given per call, and the token of an Authorization header echoed alone', async () => {
    server.setHandler((received) => ({
      status: 401,
      json: { error: { message: `bad token ${String(received.headers['x-gateway-token'])}; proxy credentials ${String(received.headers['proxy-authorization']).split(' ')[1]}`, type: 'invalid_request_error' } },
    }))
    const provider = createOpenAI({ apiKey: 'sk-x-123456', baseURL: `${server.url}/v1`, headers: { 'Proxy-Authorization': 'Basic cHJveHk6c2VjcmV0cGFzcw==' }, maxRetries: 0 })
    const collected = await collectStream(provider.chat('gpt-test').stream(request, { headers: { 'X-Gateway-Token': callToken } }))
    expectScrubbed(collected.error, callToken, 'cHJveHk6c2VjcmV0cGFzcw==')
    expect((collected.error as Error).message).toBe('[spindle/openai] HTTP 401: bad token ***; proxy credentials *** — check the API key (apiKey option or OPENAI_API_KEY).')
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
