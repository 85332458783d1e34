// The plugin in a real AgentRuntime: registered with extensions.use(), resolved as `ollama:llama3.2`, a tool call
// then an answer over the loopback NDJSON server; plus the error mapping a plugin must test.
import { AgentRuntime, Extensions, defineTool } from '@spindle/core'
import { startScriptedServer, type ScriptedServer } from '@spindle/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createOllama, mapOllamaError } from './index.js'
import { ollamaChatWire } from './ollama-wire.js'

describe('spindle-provider-ollama in an AgentRuntime', () => {
  let server: ScriptedServer
  beforeAll(async () => {
    server = await startScriptedServer()
  })
  afterAll(() => server.close())

  it('runs a tool call, then answers; the tool result goes back as a tool message', async () => {
    const getWeather = defineTool({
      name: 'get_weather',
      description: 'Current weather for a city',
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => ({ city, forecast: 'sunny' }),
    })
    server.enqueue(
      ollamaChatWire.streamTurn({
        toolCalls: [{ id: 'call_w', name: 'get_weather', argumentChunks: ['{"city":"Lyon"}'] }],
        usage: { inputTokens: 40, outputTokens: 9 },
      }),
      ollamaChatWire.streamTurn({ text: ['Sunny ', 'in Lyon.'], usage: { inputTokens: 60, outputTokens: 5 } }),
    )
    const runtime = new AgentRuntime(new Extensions().use(createOllama({ baseURL: server.url })))
    const output = await runtime.run({ agent: { name: 'weather', model: 'ollama:llama3.2', tools: { get_weather: getWeather } }, input: 'Weather in Lyon?' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'Sunny in Lyon.', steps: 2 })
    expect(output.usage).toMatchObject({ inputTokens: 100, outputTokens: 14 })
    const second = server.requests[1]!.body as { model: string; stream: boolean; messages: Array<Record<string, unknown>> }
    expect(second).toMatchObject({ model: 'llama3.2', stream: true })
    expect(second.messages.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_w', function: { name: 'get_weather', arguments: { city: 'Lyon' } } }],
    })
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', tool_name: 'get_weather', tool_call_id: 'call_w' })
    expect(JSON.parse(second.messages.at(-1)!.content as string)).toEqual({ city: 'Lyon', forecast: 'sunny' })
  })

  it('maps Ollama errors to core errors with a hint, and redacts the key', () => {
    const missing = mapOllamaError({ status: 404, message: 'model "llama9" not found, try pulling it first', secrets: [] })
    expect(missing).toMatchObject({ code: 'provider', status: 404, isRetryable: false })
    expect(missing.message).toMatch(/ollama pull/)
    expect(mapOllamaError({ status: 400, message: 'the input length exceeds the context length', secrets: [] }).code).toBe('context_overflow')
    expect(mapOllamaError({ status: 503, message: 'server busy', headers: new Headers({ 'retry-after': '2' }), secrets: [] })).toMatchObject({
      isRetryable: true,
      retryAfterMs: 2000,
    })
    expect(mapOllamaError({ status: 401, message: 'bad key sk-secret-1', secrets: ['sk-secret-1'] }).message).not.toContain('sk-secret-1')
  })
})
