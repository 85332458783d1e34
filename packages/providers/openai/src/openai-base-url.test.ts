// Base URLs the SDK cannot use as given: credentials before the host are refused at creation (never echoed), a query
// string is kept on every request after the path; a connection failure says what happened, with one period.
import { ConfigurationError } from '@spindle/core'
import { collectStream, openaiChatWire, openaiEmbeddingsResponse, openaiResponsesWire, startScriptedServer, type ScriptedServer } from '@spindle/testing'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createOpenAI } from './index.js'

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
})
afterEach(() => {
  vi.unstubAllEnvs()
})

const request = { messages: [{ role: 'user' as const, content: 'Hi' }] }

describe('createOpenAI baseURL', () => {
  it('refuses credentials before the host with a ConfigurationError that does not quote the password', () => {
    const attempt = () => createOpenAI({ apiKey: 'sk-x', baseURL: 'http://alice:pa55-w0rd-secret@proxy.example:8080/v1' })
    expect(attempt).toThrow(ConfigurationError)
    expect(attempt).toThrow('[spindle/openai] createOpenAI: baseURL "http://proxy.example:8080/v1" carries credentials before its host (user:password@)')
    expect(() => attempt()).not.toThrow(/pa55-w0rd-secret|alice/)
    expect(() => createOpenAI({ baseURL: 'http://host/v1#frag' })).toThrow(/has a fragment/)
  })

  it('refuses OPENAI_BASE_URL with credentials at the first call, not at creation', async () => {
    vi.stubEnv('OPENAI_BASE_URL', 'http://bob:env-secret-pw@127.0.0.1:9/v1')
    const provider = createOpenAI({ apiKey: 'sk-x', maxRetries: 0 })
    const collected = await collectStream(provider.chat('gpt-test').stream(request))
    expect(collected.error).toBeInstanceOf(ConfigurationError)
    expect((collected.error as Error).message).toMatch(/^\[spindle\/openai\] OPENAI_BASE_URL: baseURL "http:\/\/127\.0\.0\.1:9\/v1" carries credentials/)
    expect((collected.error as Error).message).not.toContain('env-secret-pw')
  })

  it('keeps a query string on every request, after the path (Responses, Chat Completions, embeddings)', async () => {
    server.enqueue(openaiResponsesWire.streamTurn({ text: ['r'] }), openaiChatWire.streamTurn({ text: ['c'] }), openaiEmbeddingsResponse([[1]]))
    const provider = createOpenAI({ apiKey: 'sk-x', baseURL: `${server.url}/v1?api-version=2025-04-01-preview&deployment=d1`, maxRetries: 0 })
    expect((await collectStream(provider.responses('gpt-test').stream(request))).text).toBe('r')
    expect((await collectStream(provider.chat('gpt-test').stream(request))).text).toBe('c')
    await provider.embedding('text-embedding-3-small').embed(['a'])
    expect(server.requests.map((received) => received.url)).toEqual([
      '/v1/responses?api-version=2025-04-01-preview&deployment=d1',
      '/v1/chat/completions?api-version=2025-04-01-preview&deployment=d1',
      '/v1/embeddings?api-version=2025-04-01-preview&deployment=d1',
    ])
  })

  it('says a connection failed with one period, the requests made and no promise of a retry', async () => {
    const closed = await startScriptedServer()
    await closed.close()
    const provider = createOpenAI({ apiKey: 'sk-x', baseURL: `${closed.url}/v1`, maxRetries: 1, retry: { initialDelayMs: 1 } })
    const collected = await collectStream(provider.chat('gpt-test').stream(request))
    expect((collected.error as Error).message).toBe(
      '[spindle/openai] could not reach the API: Connection error (2 requests made). Check baseURL and the network.',
    )
  })
})
