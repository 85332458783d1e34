// Base URLs the SDK cannot use as given: credentials before the host are refused at creation (never echoed), a query
// string is kept on every request after the path; a connection failure says what happened, with one period.
import { ConfigurationError } from '@spindle/core'
import { collectStream, startAnthropicMessagesServer, startScriptedServer, type AnthropicMessagesServer } from '@spindle/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAnthropic } from './index.js'

let server: AnthropicMessagesServer
beforeAll(async () => {
  server = await startAnthropicMessagesServer()
})
afterAll(() => server.close())

const request = { messages: [{ role: 'user' as const, content: 'Hi' }] }

describe('createAnthropic baseURL', () => {
  it('refuses credentials before the host with a ConfigurationError that does not quote the password', () => {
    const attempt = () => createAnthropic({ apiKey: 'k', baseURL: 'https://alice:pa55-w0rd-secret@gateway.example/anthropic' })
    expect(attempt).toThrow(ConfigurationError)
    expect(attempt).toThrow(
      '[spindle/anthropic] createAnthropic: baseURL "https://gateway.example/anthropic" carries credentials before its host (user:password@)',
    )
    expect(() => attempt()).not.toThrow(/pa55-w0rd-secret|alice/)
    expect(() => createAnthropic({ baseURL: 'gateway.example' })).toThrow(/must start with http/)
  })

  it('keeps a query string on every request, after the path', async () => {
    server.enqueue({ turn: { blocks: [{ type: 'text', text: 'ok' }] } })
    const model = createAnthropic({ apiKey: 'k', baseURL: `${server.baseURL}?team=ml&region=eu` })('claude-sonnet-5')
    expect((await collectStream(model.stream(request))).text).toBe('ok')
    expect(server.requests.at(-1)!.url).toBe('/v1/messages?team=ml&region=eu')
  })

  it('says a connection failed with one period, the requests made and no promise of a retry', async () => {
    const closed = await startScriptedServer()
    await closed.close()
    const model = createAnthropic({ apiKey: 'k', baseURL: closed.url, retry: { maxRetries: 1, initialDelayMs: 1 } })('claude-sonnet-5')
    const collected = await collectStream(model.stream(request))
    expect((collected.error as Error).message).toBe(
      '[spindle/anthropic] could not reach the Anthropic API: Connection error (2 requests made). Check the network and baseURL.',
    )
  })
})
