// AI SDK models in the picker: with AI_SDK_COMPATIBLE_BASE_URL naming an OpenAI-compatible server, the playground
// registers it through @ai-sdk/openai-compatible and aiSdkProvider; its "<name>:<model>" ids appear in /api/config and
// a run on one streams over real HTTP from a loopback server speaking Chat Completions.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'
import { aiSdkProvidersFromEnv } from './ai-sdk-models.js'

const requests: Array<{ path: string; body: { model: string; stream: boolean } }> = []
let server: Server
let playground: TestPlayground

/** Chat Completions SSE for one answer, as an OpenAI-compatible server streams it. */
function chatStream(model: string, pieces: string[]): string {
  const chunk = (delta: object, finish: string | null, usage: object | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_750_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }], usage })}\n\n`
  return [
    chunk({ role: 'assistant', content: '' }, null),
    ...pieces.map((piece) => chunk({ content: piece }, null)),
    chunk({}, 'stop', { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }),
    'data: [DONE]\n\n',
  ].join('')
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = ''
    request.on('data', (data: Buffer) => (text += data.toString()))
    request.on('end', () => {
      const body = JSON.parse(text) as { model: string; stream: boolean }
      requests.push({ path: request.url ?? '', body })
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end(chatStream(body.model, ['Hello ', 'from the ', 'AI SDK.']))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  vi.stubEnv('AI_SDK_COMPATIBLE_BASE_URL', `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`)
  vi.stubEnv('AI_SDK_COMPATIBLE_MODELS', 'tiny-llm, other-llm')
  vi.stubEnv('AI_SDK_COMPATIBLE_NAME', 'local')
  playground = await startTestPlayground()
})

afterAll(async () => {
  vi.unstubAllEnvs()
  await playground?.stop()
  await new Promise((resolve) => server.close(resolve))
})

describe('AI SDK models in the playground picker', () => {
  it('lists the models of the registered AI SDK provider and runs on one by its "<provider>:<model>" id', async () => {
    const config = await playground.call('GET', '/api/config')
    expect(config.status).toBe(200)
    const ids = (config.body.models as Array<{ id: string; label: string; demo: boolean }>).map((model) => model.id)
    expect(ids).toEqual(expect.arrayContaining(['demo:scripted', 'local:tiny-llm', 'local:other-llm']))
    expect(config.body.models.find((model: { id: string }) => model.id === 'local:tiny-llm')).toMatchObject({
      demo: false,
      label: expect.stringContaining('tiny-llm'),
    })

    const started = await playground.call('POST', '/api/messages', { text: 'Say hello', model: 'local:tiny-llm' })
    expect(started.status).toBe(202)
    const detail = await playground.waitForRun(started.body.runId, (run) => run.run.status === 'completed')
    expect(detail.run).toMatchObject({ model: 'local:tiny-llm', finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 5 } })
    const messages = await playground.call('GET', `/api/sessions/${detail.run.sessionId}/messages`)
    expect(JSON.stringify(messages.body)).toContain('Hello from the AI SDK.')
    expect(requests.at(-1)).toMatchObject({ path: '/v1/chat/completions', body: { model: 'tiny-llm', stream: true } })
  })

  it('adds nothing without a base URL and refuses a base URL without models', async () => {
    expect(await aiSdkProvidersFromEnv({})).toEqual([])
    await expect(aiSdkProvidersFromEnv({ AI_SDK_COMPATIBLE_BASE_URL: 'http://127.0.0.1:1/v1' })).rejects.toThrow(/AI_SDK_COMPATIBLE_MODELS/)
  })
})
