// A full agent run through AgentRuntime on the Anthropic provider, against the loopback server:
// thinking + a tool call, the tool runs, then the answer.
import { AgentRuntime, Extensions, defineTool } from '@spindle/core'
import { anthropicResponse, startAnthropicMessagesServer, type AnthropicMessagesServer, type AnthropicScriptedBlock } from '@spindle/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAnthropic, type AnthropicProvider } from './index.js'

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

function weatherTool(calls: string[]) {
  return defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: ({ city }) => {
      calls.push(city)
      return { city, sky: 'sunny', celsius: 24 }
    },
  })
}

const provider = (): AnthropicProvider => createAnthropic({ apiKey: 'sk-ant-test-agent', baseURL: server.baseURL, retry: { initialDelayMs: 5 } })
const extensions = () => new Extensions().use(provider())

describe('@spindle/anthropic through AgentRuntime', () => {
  it('runs a tool call, then answers; thinking and tool results go back on the wire', async () => {
    server.enqueue(
      {
        turn: {
          blocks: [
            { type: 'thinking', thinking: 'I should check the weather.', signature: 'sig_agent_run_1' },
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_agent_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
          usage: { input_tokens: 40, cache_creation_input_tokens: 200, output_tokens: 30 },
        },
      },
      {
        turn: { blocks: [{ type: 'text', text: 'It is sunny in Paris, 24°C.' }], usage: { input_tokens: 90, cache_read_input_tokens: 200, output_tokens: 12 } },
      },
    )
    const calls: string[] = []
    const runtime = new AgentRuntime(extensions())
    const output = await runtime.run({
      agent: {
        name: 'weather',
        instructions: 'Answer weather questions briefly.',
        // Extended thinking for every call of this agent's model.
        model: provider()('claude-sonnet-5', { thinking: { type: 'enabled', budget_tokens: 2048 } }),
        tools: { get_weather: weatherTool(calls) },
      },
      input: 'What is the weather in Paris?',
    })
    expect(output.finishReason).toBe('stop')
    expect(output.text).toContain('It is sunny in Paris, 24°C.')
    expect(output.steps).toBe(2)
    expect(calls).toEqual(['Paris'])
    expect(output.usage).toMatchObject({ inputTokens: 240 + 290, outputTokens: 42 })

    expect(server.requests).toHaveLength(2)
    const first = server.requests[0]!.body
    expect(first.model).toBe('claude-sonnet-5')
    expect(first.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 })
    expect(first.system.at(-1)).toMatchObject({ cache_control: { type: 'ephemeral' } })
    expect(JSON.stringify(first.system)).toContain('Answer weather questions briefly.')
    expect(first.tools).toEqual([
      expect.objectContaining({ name: 'get_weather', input_schema: expect.objectContaining({ type: 'object' }) }),
      // The runtime's built-in read_artifact tool comes last, so it carries the tool list's cache breakpoint.
      expect.objectContaining({ name: 'read_artifact', cache_control: { type: 'ephemeral' } }),
    ])
    const second = server.requests[1]!.body
    const assistant = second.messages.find((message: { role: string }) => message.role === 'assistant')
    expect(assistant.content).toEqual([
      { type: 'thinking', thinking: 'I should check the weather.', signature: 'sig_agent_run_1' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_agent_1', name: 'get_weather', input: { city: 'Paris' } },
    ])
    const toolTurn = second.messages.at(-1)
    expect(toolTurn.role).toBe('user')
    expect(toolTurn.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_agent_1' })
    expect(JSON.parse(toolTurn.content[0].content)).toEqual({ city: 'Paris', sky: 'sunny', celsius: 24 })
  })

  it('interleaved thinking goes back block for block: each signature with its own thinking, redacted thinking as is, in order among the tool uses', async () => {
    const blocks = [
      { type: 'thinking', thinking: 'Think A.', signature: 'SIG_A' },
      { type: 'redacted_thinking', data: 'OPAQUE' },
      { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'thinking', thinking: 'Think B.', signature: 'SIG_B' },
      { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Oslo' } },
    ] satisfies AnthropicScriptedBlock[]
    server.enqueue({ turn: { blocks } }, { turn: { blocks: [{ type: 'text', text: 'Sunny in both.' }] } })
    const calls: string[] = []
    const output = await new AgentRuntime(extensions()).run({
      agent: {
        name: 'weather',
        model: provider()('claude-sonnet-5', { thinking: { type: 'enabled', budget_tokens: 2048 } }),
        tools: { get_weather: weatherTool(calls) },
      },
      input: 'Weather in Paris and Oslo?',
    })
    expect(output.finishReason).toBe('stop')
    expect(calls).toEqual(['Paris', 'Oslo'])
    const assistant = server.requests[1]!.body.messages.find((message: { role: string }) => message.role === 'assistant')
    expect(assistant.content).toEqual(blocks)
  })

  it('streams the run as events: reasoning, tool call and result, text', async () => {
    server.enqueue(
      {
        turn: {
          blocks: [
            { type: 'thinking', thinking: 'Hmm.', signature: 'sig_2' },
            { type: 'tool_use', id: 'toolu_s', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
      },
      { turn: { blocks: [{ type: 'text', text: 'Sunny in Oslo.' }] } },
    )
    const calls: string[] = []
    const stream = new AgentRuntime(extensions()).stream({
      agent: { name: 'weather', model: 'anthropic:claude-sonnet-5', tools: { get_weather: weatherTool(calls) } },
      input: 'Oslo?',
    })
    const types: string[] = []
    for await (const event of stream) types.push(event.type)
    const output = await stream.result
    expect(output).toMatchObject({ finishReason: 'stop', text: 'Sunny in Oslo.' })
    for (const type of ['run.started', 'reasoning.delta', 'tool.call', 'tool.result', 'text.delta', 'run.finished']) expect(types).toContain(type)
    expect(types.indexOf('tool.result')).toBeLessThan(types.indexOf('text.delta'))
    expect(calls).toEqual(['Oslo'])
  })

  it('never executes a tool call whose input was cut off mid-stream', async () => {
    const cut = {
      turn: {
        blocks: [
          { type: 'text' as const, text: 'Deleting.' },
          { type: 'tool_use' as const, id: 'toolu_cut', name: 'get_weather', inputChunks: ['{"city":', '"Pa', 'ris"}'] },
        ],
      },
      truncateAfter: 9,
    }
    server.enqueue(cut, cut, cut, cut)
    const calls: string[] = []
    const output = await new AgentRuntime(extensions(), { maxSteps: 3 }).run({
      agent: { name: 'weather', model: 'anthropic:claude-sonnet-5', tools: { get_weather: weatherTool(calls) } },
      input: 'Paris?',
    })
    expect(calls).toEqual([])
    expect(output.finishReason).toBe('error')
    expect(output.error?.code).toBe('stream_interrupted')
  })

  it('does not abandon a healthy stream while a slow reader of runtime.stream() holds it back', async () => {
    // More deltas than the event channel buffers: while the reader pauses, back-pressure stops the model stream.
    server.enqueue({ turn: { blocks: [{ type: 'text', text: Array.from({ length: 1_500 }, (_, index) => `w${index} `) }] } })
    const model = createAnthropic({ apiKey: 'sk-ant-test-agent', baseURL: server.baseURL, idleTimeoutMs: 200 })('claude-sonnet-5')
    const stream = new AgentRuntime(new Extensions()).stream({ agent: { name: 'writer', model }, input: 'Write' })
    let deltas = 0
    for await (const event of stream) {
      if (event.type === 'text.delta' && deltas++ === 0) await new Promise((resolve) => setTimeout(resolve, 600))
    }
    const output = await stream.result
    expect(output.error).toBeUndefined()
    expect(output.finishReason).toBe('stop')
    expect(deltas).toBe(1_500)
    expect(server.requests).toHaveLength(1)
  })

  // The provider retries by itself and reports its attempts, so the runtime (default policy: modelRetry.maxRetries 2)
  // does not retry the call again: a failing call costs 1 + maxRetries requests, not that times 3.
  for (const maxRetries of [2, 0]) {
    it(`sends 1 + maxRetries requests to an API that always fails with 500 (maxRetries ${maxRetries})`, async () => {
      server.scripted.setHandler(() => anthropicResponse({ kind: 'error', errorType: 'api_error' }))
      const model = createAnthropic({ apiKey: 'sk-ant-test-agent', baseURL: server.baseURL, retry: { maxRetries, initialDelayMs: 5 } })('claude-sonnet-5')
      const output = await new AgentRuntime(new Extensions()).run({ agent: { name: 'writer', model }, input: 'Write' })
      expect(output.finishReason).toBe('error')
      expect(output.error?.code).toBe('provider_server')
      expect(server.requests).toHaveLength(1 + maxRetries)
    })
  }

  it('does not retry again a call whose first chunk timed out on every provider attempt', async () => {
    server.scripted.setHandler(() => anthropicResponse({ turn: { blocks: [{ type: 'text', text: 'late' }] }, firstEventDelayMs: 2_000 }))
    const model = createAnthropic({
      apiKey: 'sk-ant-test-agent',
      baseURL: server.baseURL,
      firstChunkTimeoutMs: 100,
      retry: { maxRetries: 1, initialDelayMs: 5 },
    })('claude-sonnet-5')
    const output = await new AgentRuntime(new Extensions()).run({ agent: { name: 'writer', model }, input: 'Write' })
    expect(output.finishReason).toBe('error')
    expect(output.error?.message).toMatch(/firstChunkTimeoutMs/)
    expect(server.requests).toHaveLength(2)
  })
})
