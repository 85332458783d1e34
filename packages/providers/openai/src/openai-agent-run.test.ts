// A full agent run through the kernel's AgentRuntime: the model (real openai SDK over loopback HTTP)
// asks for a tool, the runtime executes it, and the model answers — for both OpenAI APIs; and how failures end a run.
import { AgentRuntime, Extensions, defineTool, type AgentEvent } from '@spindle/core'
import { openaiChatWire, openaiHttpError, openaiResponsesWire, startScriptedServer, type ScriptedServer, type WireAdapter } from '@spindle/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createOpenAI } from './index.js'

describe('AgentRuntime with @spindle/openai', () => {
  let server: ScriptedServer
  beforeAll(async () => {
    server = await startScriptedServer()
  })
  afterAll(() => server.close())
  beforeEach(() => {
    server.reset()
  })

  const cases: Array<{ api: 'responses' | 'chat'; wire: WireAdapter }> = [
    { api: 'responses', wire: openaiResponsesWire },
    { api: 'chat', wire: openaiChatWire },
  ]

  for (const { api, wire } of cases) {
    it(`runs a tool call, then an answer, through the ProviderRegistry (${api})`, async () => {
      const executed: Array<{ city: string }> = []
      const getWeather = defineTool({
        name: 'get_weather',
        description: 'Current weather for a city',
        inputSchema: z.object({ city: z.string() }),
        execute: (input) => {
          executed.push(input)
          return { city: input.city, forecast: 'sunny', celsius: 24 }
        },
      })
      server.enqueue(
        wire.streamTurn({
          toolCalls: [{ id: 'call_weather_1', name: 'get_weather', argumentChunks: ['{"city":', '"Lyon"}'] }],
          usage: { inputTokens: 50, outputTokens: 10 },
        }),
        wire.streamTurn({ text: ['It is sunny ', 'in Lyon (24 °C).'], usage: { inputTokens: 80, outputTokens: 12 } }),
      )
      const provider = createOpenAI({ name: 'loopback', apiKey: 'sk-agent-test', baseURL: `${server.url}/v1`, defaultApi: api })
      const extensions = new Extensions().use(provider)
      const runtime = new AgentRuntime(extensions)
      const output = await runtime.run({
        agent: { name: 'weather', instructions: 'You answer weather questions.', model: 'loopback:gpt-test', tools: { get_weather: getWeather } },
        input: 'What is the weather in Lyon?',
      })
      expect(output.finishReason).toBe('stop')
      expect(output.text).toBe('It is sunny in Lyon (24 °C).')
      expect(executed).toEqual([{ city: 'Lyon' }])
      expect(output.steps).toBe(2)
      expect(output.usage.inputTokens).toBe(130)
      expect(output.usage.outputTokens).toBe(22)
      expect(server.requests).toHaveLength(2)
      expect(server.requests.every((request) => request.path === wire.path)).toBe(true)
      const first = server.requests[0]!.rawBody
      expect(first).toContain('You answer weather questions.')
      expect(first).toContain('get_weather')
      const second = server.requests[1]!.body
      const secondText = server.requests[1]!.rawBody
      expect(secondText).toContain('call_weather_1')
      expect(secondText).toContain('sunny')
      if (api === 'responses') {
        expect(second.input).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ type: 'function_call', call_id: 'call_weather_1', name: 'get_weather' }),
            expect.objectContaining({ type: 'function_call_output', call_id: 'call_weather_1' }),
          ]),
        )
      } else {
        expect(second.messages).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ role: 'assistant', tool_calls: [expect.objectContaining({ id: 'call_weather_1' })] }),
            expect.objectContaining({ role: 'tool', tool_call_id: 'call_weather_1' }),
          ]),
        )
      }
    })
  }

  it('does not execute a tool call whose arguments were cut off, and fails the run', async () => {
    let executed = 0
    const remove = defineTool({
      name: 'delete_file',
      description: 'Deletes a file',
      inputSchema: z.object({ path: z.string() }),
      execute: () => {
        executed++
        return 'deleted'
      },
    })
    // Every attempt (the kernel may retry a retryable interruption) is cut inside the arguments.
    server.setHandler(() =>
      openaiResponsesWire.streamTurn({
        toolCalls: [{ id: 'call_cut', name: 'delete_file', argumentChunks: ['{"path":"/im', 'portant"}'] }],
        truncate: 'mid-tool-arguments',
      }),
    )
    const provider = createOpenAI({ name: 'loopback', apiKey: 'sk-agent-test', baseURL: `${server.url}/v1`, maxRetries: 0, defaultApi: 'responses' })
    const runtime = new AgentRuntime(new Extensions().use(provider))
    const output = await runtime.run({ agent: { name: 'cleaner', model: 'loopback:gpt-test', tools: { delete_file: remove } }, input: 'Delete it' })
    expect(executed).toBe(0)
    expect(server.requests.length).toBeGreaterThanOrEqual(1)
    expect(server.requests.every((request) => request.path === '/v1/responses')).toBe(true)
    expect(output.finishReason).toBe('error')
    expect(output.error?.code).toBe('stream_interrupted')
  })

  for (const { api, wire } of cases) {
    it(`fails the run with stream_interrupted when the connection breaks mid-answer (${api})`, async () => {
      server.setHandler(() => ({ ...wire.streamTurn({ text: ['half ', 'an answer'], truncate: 'before-finish' }), ending: 'destroy' }))
      const provider = createOpenAI({ name: 'loopback', apiKey: 'sk-agent-test', baseURL: `${server.url}/v1`, maxRetries: 0, defaultApi: api })
      const runtime = new AgentRuntime(new Extensions().use(provider))
      const output = await runtime.run({ agent: { name: 'writer', model: 'loopback:gpt-test' }, input: 'Write' })
      expect(output.finishReason).toBe('error')
      expect(output.error?.code).toBe('stream_interrupted')
      expect(output.error?.message).not.toMatch(/the request failed/)
    })
  }

  // The provider retries by itself and reports its attempts, so the runtime (default policy: modelRetry.maxRetries 2)
  // does not retry the call again: a failing call costs 1 + maxRetries requests, not that times 3.
  for (const maxRetries of [2, 0]) {
    it(`sends 1 + maxRetries requests to an API that always fails with 500 (maxRetries ${maxRetries})`, async () => {
      server.setHandler(() => openaiHttpError({ kind: 'server', status: 500, message: 'boom' }))
      const provider = createOpenAI({ apiKey: 'sk-agent-test', baseURL: `${server.url}/v1`, maxRetries, retry: { initialDelayMs: 5 } })
      const runtime = new AgentRuntime(new Extensions())
      const output = await runtime.run({ agent: { name: 'writer', model: provider.chat('gpt-test') }, input: 'Write' })
      expect(output.finishReason).toBe('error')
      expect(output.error?.code).toBe('provider_server')
      expect(server.requests).toHaveLength(1 + maxRetries)
    })
  }

  it('does not retry again a call whose first chunk timed out on every provider attempt', async () => {
    server.setHandler(() => ({ ...openaiResponsesWire.streamTurn({ text: ['late'] }), firstEventDelayMs: 2_000 }))
    const provider = createOpenAI({
      apiKey: 'sk-agent-test',
      baseURL: `${server.url}/v1`,
      maxRetries: 1,
      retry: { initialDelayMs: 5 },
      timeouts: { firstChunkMs: 100 },
    })
    const runtime = new AgentRuntime(new Extensions())
    const output = await runtime.run({ agent: { name: 'writer', model: provider.responses('gpt-test') }, input: 'Write' })
    expect(output.finishReason).toBe('error')
    expect(output.error?.message).toMatch(/first-chunk timeout/)
    // It answered too late, it was reached: a timeout, not an unreachable provider.
    expect(output.error).toMatchObject({ code: 'provider_timeout', retryable: true, provider: 'openai' })
    expect(server.requests).toHaveLength(2)
  })

  it('keeps a credential header echoed by the server out of run.failed, the run record, snapshots and the event log', async () => {
    const headerKey = 'azurehdr-5555-EEEE-6666-FFFF'
    server.setHandler((received) => ({
      status: 401,
      json: { error: { message: `Access denied due to invalid subscription key ${String(received.headers['api-key'])}`, code: '401' } },
    }))
    const provider = createOpenAI({
      name: 'azure',
      apiKey: 'unused-but-required',
      baseURL: `${server.url}/v1`,
      headers: { 'api-key': headerKey },
      maxRetries: 0,
    })
    const runtime = new AgentRuntime(new Extensions())
    const events: AgentEvent[] = []
    const stream = runtime.stream({ sessionId: 'secret-header', input: 'hi', agent: { name: 'a', model: provider.chat('gpt-test') } })
    for await (const event of stream) events.push(event)
    const output = await stream.result
    const failed = events.find((event) => event.type === 'run.failed')
    expect(failed).toBeDefined()
    expect(JSON.stringify(failed)).toContain('invalid subscription key [REDACTED]')
    expect(JSON.stringify(failed)).not.toContain(headerKey)
    expect(JSON.stringify(await runtime.runs.getRun(output.runId))).not.toContain(headerKey)
    expect(JSON.stringify(await runtime.snapshots.list(output.runId))).not.toContain(headerKey)
    expect(JSON.stringify(await runtime.runs.listEvents(output.runId))).not.toContain(headerKey)
  })
})
