// Credentials passed as headers (gateway keys and tokens) never reach an error, even when the server
// echoes them: the real SDK over real HTTP against the loopback server, plus the header classification.
import type { ModelRequest, StreamPart } from '@spindle/core'
import { anthropicErrorBody, startAnthropicMessagesServer, type AnthropicMessagesServer, type RecordedRequest } from '@spindle/testing'
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

const apiKey = 'sk-ant-api03-SECRET-0123456789abcdef'
const gatewayKey = 'gateway-key-7777-GGGG-8888'
const callToken = 'call-token-0123456789'
const ask: ModelRequest = { messages: [{ role: 'user', content: 'Hello' }] }

/** A 401 whose message echoes the request headers, as some gateways do. */
function echoHeaders(received: RecordedRequest) {
  return { status: 401, json: anthropicErrorBody('authentication_error', `rejected headers ${JSON.stringify(received.headers)}`, 'req_echo') }
}

type MappedError = Error & { cause?: Error }

async function failure(stream: AsyncIterable<StreamPart>): Promise<MappedError> {
  try {
    for await (const part of stream) if (part.type === 'error') return part.error as MappedError
  } catch (error) {
    return error as MappedError
  }
  throw new Error('the stream did not fail')
}

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
    expect(error.message).toContain('[redacted]')
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
    expect(error.message).toContain('bad token [redacted]')
  })

  it('leaves the values of other headers in messages', async () => {
    server.scripted.setHandler(echoHeaders)
    const model = createAnthropic({ apiKey, baseURL: server.baseURL, headers: { 'anthropic-beta': 'test-beta-1' }, retry: { maxRetries: 0 } })('claude-sonnet-5')
    const error = await failure(model.stream(ask, { headers: { 'x-request-purpose': 'nightly-eval' } }))
    expect(error.message).toContain('test-beta-1')
    expect(error.message).toContain('nightly-eval')
  })
})
