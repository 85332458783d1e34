import { Extensions, ProviderRegistry } from '@spindle/core'
import {
  collectStream,
  openaiChatEvents,
  openaiEmbeddingsResponse,
  openaiHttpError,
  openaiResponsesWire,
  startScriptedServer,
  type ScriptedServer,
} from '@spindle/testing'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createOpenAI, openai, OpenAIChatModel, OpenAIEmbeddingModel, OpenAIResponsesModel } from './index.js'

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

const userRequest = { messages: [{ role: 'user' as const, content: 'Hi' }] }

describe('createOpenAI', () => {
  it('is callable for the Responses API and has responses, chat and embedding factories', () => {
    const provider = createOpenAI({ apiKey: 'sk-x' })
    const model = provider('gpt-5.4')
    expect(model).toBeInstanceOf(OpenAIResponsesModel)
    expect(model).toMatchObject({ specificationVersion: 'v1', provider: 'openai', modelId: 'gpt-5.4' })
    expect(model.capabilities).toMatchObject({ reasoning: true, tools: true, parallelTools: true, structuredOutput: true, contextWindow: 400_000 })
    expect(provider.responses('gpt-4.1')).toBeInstanceOf(OpenAIResponsesModel)
    expect(provider.chat('gpt-5.4-mini')).toBeInstanceOf(OpenAIChatModel)
    const embedding = provider.embedding('text-embedding-3-small')
    expect(embedding).toBeInstanceOf(OpenAIEmbeddingModel)
    expect(embedding.dimensions).toBe(1536)
    expect(provider.name).toBe('openai')
    expect(provider.chat('my-local', { capabilities: { contextWindow: 8192, tools: false } }).capabilities).toMatchObject({ contextWindow: 8192, tools: false })
  })

  it('rejects invalid options with a clear ConfigurationError', () => {
    expect(() => createOpenAI({ maxRetries: -1 })).toThrow(/maxRetries must be an integer/)
    expect(() => createOpenAI({ timeouts: { idleMs: Number.NaN } })).toThrow(/idleMs must be a number/)
    expect(() => createOpenAI({ name: 'has:colon' })).toThrow(/prefixes model ids/)
    expect(() => createOpenAI({ baseURL: 'localhost:11434' })).toThrow(/must start with http/)
  })

  it('exports a default instance', () => {
    expect(openai.name).toBe('openai')
    expect(openai('gpt-5.4').provider).toBe('openai')
  })

  it('registers as an Extensions plugin so openai:model ids resolve', () => {
    const extensions = new Extensions().use(createOpenAI({ apiKey: 'sk-x' }))
    const model = extensions.providers.languageModel('openai:gpt-5.4')
    expect(model).toBeInstanceOf(OpenAIResponsesModel)
    expect(model.modelId).toBe('gpt-5.4')
    expect(extensions.providers.embeddingModel('openai:text-embedding-3-large').dimensions).toBe(3072)
    const viaPlugin = new Extensions().use(createOpenAI({ apiKey: 'sk-x' }).plugin())
    expect(viaPlugin.providers.providerNames()).toEqual(['openai'])
  })

  it('takes a name for OpenAI-compatible servers, which default to Chat Completions', () => {
    const ollama = createOpenAI({ name: 'ollama', baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'ollama' })
    const registry = new ProviderRegistry()
    ollama.setup({ providers: registry } as unknown as Extensions)
    const model = registry.languageModel('ollama:llama3.2')
    expect(model).toBeInstanceOf(OpenAIChatModel)
    expect(model.provider).toBe('ollama')
    const both = new Extensions().use(createOpenAI({ apiKey: 'sk-x' })).use(ollama)
    expect(both.providers.providerNames().sort()).toEqual(['ollama', 'openai'])
  })

  it('fails at call time, not at creation, with a clear error when no key is set', async () => {
    vi.stubEnv('OPENAI_API_KEY', '')
    const provider = createOpenAI({ baseURL: `${server.url}/v1` })
    const model = provider.responses('gpt-test')
    const collected = await collectStream(model.stream(userRequest))
    expect((collected.error as { code?: string }).code).toBe('configuration')
    expect(String((collected.error as Error).message)).toMatch(/OPENAI_API_KEY/)
    expect(server.requests).toHaveLength(0)
  })

  it('falls back to OPENAI_API_KEY', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env-123')
    server.enqueue(openaiResponsesWire.streamTurn({ text: ['ok'] }))
    const collected = await collectStream(
      createOpenAI({ baseURL: `${server.url}/v1` })
        .responses('gpt-test')
        .stream(userRequest),
    )
    expect(collected.error).toBeUndefined()
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-from-env-123')
  })

  it('sends organization, project, default headers and per-call headers, through a custom fetch', async () => {
    const fetched: string[] = []
    const provider = createOpenAI({
      apiKey: 'sk-x',
      baseURL: `${server.url}/v1`,
      organization: 'org-123',
      project: 'proj-456',
      headers: { 'x-team': 'spindle' },
      fetch: (input, init) => {
        fetched.push(String(input instanceof Request ? input.url : input))
        return globalThis.fetch(input, init)
      },
    })
    server.enqueue(openaiResponsesWire.streamTurn({ text: ['ok'] }))
    const collected = await collectStream(provider.responses('gpt-test').stream(userRequest, { headers: { 'x-call': 'one' } }))
    expect(collected.error).toBeUndefined()
    const headers = server.requests[0]!.headers
    expect(headers).toMatchObject({ 'openai-organization': 'org-123', 'openai-project': 'proj-456', 'x-team': 'spindle', 'x-call': 'one' })
    expect(fetched).toEqual([`${server.url}/v1/responses`])
  })

  it('closes the connection when the consumer stops reading early', async () => {
    server.enqueue({ ...openaiResponsesWire.streamTurn({ text: ['a', 'b', 'c'], truncate: 'before-finish' }), ending: 'hang' })
    const model = createOpenAI({ apiKey: 'sk-x', baseURL: `${server.url}/v1` }).responses('gpt-test')
    for await (const part of model.stream(userRequest)) if (part.type === 'text-delta') break
    const deadline = Date.now() + 2_000
    while (!server.requests[0]?.clientClosed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(server.requests[0]?.clientClosed).toBe(true)
  })
})

describe('embedding', () => {
  it('embeds texts in order, as floats, with usage', async () => {
    server.enqueue(
      openaiEmbeddingsResponse(
        [
          [0.1, 0.2, 0.3],
          [0.4, 0.5, 0.6],
        ],
        { promptTokens: 9 },
      ),
    )
    const model = createOpenAI({ apiKey: 'sk-x', baseURL: `${server.url}/v1` }).embedding('text-embedding-3-small', { dimensions: 3 })
    const result = await model.embed(['alpha', 'beta'])
    expect(result.embeddings).toEqual([
      [0.1, 0.2, 0.3],
      [0.4, 0.5, 0.6],
    ])
    expect(result.usage).toEqual({ tokens: 9 })
    expect(model.dimensions).toBe(3)
    expect(server.requests[0]?.body).toEqual({ model: 'text-embedding-3-small', input: ['alpha', 'beta'], encoding_format: 'float', dimensions: 3 })
  })

  it('splits batches and retries a 500', async () => {
    server.enqueue(
      openaiEmbeddingsResponse([[1], [2]]),
      { match: { path: '/v1/embeddings' }, ...openaiHttpError({ kind: 'server', status: 500, message: 'oops' }) },
      openaiEmbeddingsResponse([[3]]),
    )
    const model = createOpenAI({ apiKey: 'sk-x', baseURL: `${server.url}/v1`, retry: { initialDelayMs: 5 } }).embedding('e', { maxBatchSize: 2 })
    expect(model.dimensions).toBe(0)
    const result = await model.embed(['a', 'b', 'c'])
    expect(result.embeddings).toEqual([[1], [2], [3]])
    expect(server.requests.map((request) => request.body.input)).toEqual([['a', 'b'], ['c'], ['c']])
    expect(model.dimensions).toBe(1)
  })

  it('maps a 401 without echoing the key', async () => {
    server.enqueue({
      match: { path: '/v1/embeddings' },
      ...openaiHttpError({ kind: 'authentication', status: 401, message: 'Incorrect API key provided: sk-secret-embed-key.' }),
    })
    const model = createOpenAI({ apiKey: 'sk-secret-embed-key', baseURL: `${server.url}/v1` }).embedding('e')
    const error = (await model.embed(['a']).catch((caught: unknown) => caught)) as {
      code: string
      status: number
      attempts?: number
      message: string
      cause?: Error
    }
    expect(error.code).toBe('provider')
    expect(error.status).toBe(401)
    expect(error.attempts).toBe(1)
    expect(error.message).not.toContain('sk-secret-embed-key')
    expect(error.message).toContain('[REDACTED]')
    expect(String(error.cause?.message)).not.toContain('sk-secret-embed-key')
  })
})

describe('timeouts', () => {
  it('does not count the time the consumer holds a part as idle time', async () => {
    server.enqueue(openaiResponsesWire.streamTurn({ text: ['slow ', 'reader'] }))
    const model = createOpenAI({ apiKey: 'sk-x', baseURL: `${server.url}/v1`, maxRetries: 0, timeouts: { idleMs: 100 } }).responses('gpt-test')
    let text = ''
    let finished = false
    for await (const part of model.stream(userRequest)) {
      if (part.type === 'text-delta') {
        text += part.delta
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
      if (part.type === 'finish') finished = true
    }
    expect(text).toBe('slow reader')
    expect(finished).toBe(true)
  })

  it('counts the first-chunk timeout until the first event, even when headers come at once', async () => {
    server.enqueue({ ...openaiResponsesWire.streamTurn({ text: ['late'] }), firstEventDelayMs: 1_500 })
    const model = createOpenAI({ apiKey: 'sk-x', baseURL: `${server.url}/v1`, maxRetries: 0, timeouts: { firstChunkMs: 150, idleMs: 5_000 } }).responses(
      'gpt-test',
    )
    const started = Date.now()
    const collected = await collectStream(model.stream(userRequest))
    expect(collected.error).toMatchObject({ code: 'provider', isRetryable: true })
    expect(String((collected.error as Error).message)).toMatch(/first-chunk timeout/)
    expect(Date.now() - started).toBeLessThan(1_200)
  })

  it('switches to the idle timeout after the first event, even when the first-chunk timeout is longer', async () => {
    server.enqueue({ ...openaiResponsesWire.streamTurn({ text: ['a'], truncate: 'before-finish' }), ending: 'hang' })
    const model = createOpenAI({ apiKey: 'sk-x', baseURL: `${server.url}/v1`, maxRetries: 0, timeouts: { firstChunkMs: 10_000, idleMs: 150 } }).responses(
      'gpt-test',
    )
    const started = Date.now()
    const collected = await collectStream(model.stream(userRequest))
    expect(collected.error).toMatchObject({ code: 'stream_interrupted' })
    expect(String((collected.error as Error).message)).toMatch(/idle timeout/)
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})

describe('Chat Completions refusals', () => {
  it('streams a refusal as text and finishes with content-filter, though the API says stop', async () => {
    // The API streams a refusal in `delta.refusal` instead of `delta.content`, then a plain `stop`.
    const events = openaiChatEvents({ text: ['I cannot ', 'help with that.'] }).map((event) => {
      const data = event.data as { choices?: Array<{ delta: Record<string, unknown> }> }
      const delta = data.choices?.[0]?.delta
      return delta?.content ? { data: { ...data, choices: [{ ...data.choices![0], delta: { refusal: delta.content } }] } } : event
    })
    server.enqueue({ events })
    const model = createOpenAI({ apiKey: 'sk-x', baseURL: `${server.url}/v1` }).chat('gpt-test')
    const collected = await collectStream(model.stream({ messages: [{ role: 'user', content: 'Something forbidden' }] }))
    expect(collected.error).toBeUndefined()
    expect(collected.text).toBe('I cannot help with that.')
    expect(collected.parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'content-filter', rawFinishReason: 'stop' })
  })
})

describe('Chat Completions files', () => {
  it('fails before any request when a non-image file is a URL, which Chat cannot take, and the Responses API sends it as file_url', async () => {
    const fileRequest = {
      messages: [
        { role: 'user' as const, content: [{ type: 'file' as const, mediaType: 'application/pdf', data: 'https://example.com/x.pdf', name: 'x.pdf' }] },
      ],
    }
    const provider = createOpenAI({ apiKey: 'sk-x', baseURL: `${server.url}/v1`, maxRetries: 2 })
    const refused = await collectStream(provider.chat('gpt-test').stream(fileRequest))
    expect(refused.error).toMatchObject({ name: 'ConfigurationError', code: 'configuration' })
    expect(String((refused.error as Error).message)).toMatch(/Chat Completions takes files only as base64 data.*Responses API/)
    expect(server.requests).toHaveLength(0)

    server.enqueue(openaiResponsesWire.streamTurn({ text: ['read it'] }))
    const sent = await collectStream(provider.responses('gpt-test').stream(fileRequest))
    expect(sent.error).toBeUndefined()
    expect((server.requests[0]!.body as { input: unknown[] }).input).toEqual([
      { role: 'user', content: [{ type: 'input_file', file_url: 'https://example.com/x.pdf' }] },
    ])
  })
})
