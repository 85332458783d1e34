// A lone surrogate (input, instructions, tool arguments, a tool result) must not poison a session: the loopback
// server refuses it as the Messages API does (400 "no low surrogate in string"), so every request must carry U+FFFD.
import { AgentRuntime, Extensions, defineTool } from '@spindle/core'
import { findLoneSurrogateEscape, startAnthropicMessagesServer, type AnthropicMessagesServer } from '@spindle/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
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

describe('@spindle/anthropic sends well-formed strings only', () => {
  it('runs a session whose input, instructions, tool arguments and tool results hold lone surrogates, and runs it again', async () => {
    const cities: string[] = []
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks a city up',
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => {
        cities.push(city)
        return { note: 'cut emoji \ud83d here', city }
      },
    })
    const echo = defineTool({ name: 'echo', description: 'Echoes', inputSchema: z.object({}), execute: () => 'plain text \udc00 result' })
    server.enqueue(
      {
        turn: {
          blocks: [
            { type: 'tool_use', id: 'toolu_lone_1', name: 'lookup', input: { city: 'Ly\ud800on' } },
            { type: 'tool_use', id: 'toolu_lone_2', name: 'echo', input: {} },
          ],
        },
      },
      { turn: { blocks: [{ type: 'text', text: 'Done.' }] } },
      { turn: { blocks: [{ type: 'text', text: 'Again.' }] } },
    )
    const runtime = new AgentRuntime(new Extensions())
    const agent = {
      name: 'surrogates',
      instructions: 'Be brief \udfff.',
      model: createAnthropic({ apiKey: 'sk-ant-test-lone', baseURL: server.baseURL, retry: { maxRetries: 0 } })('claude-sonnet-5'),
      tools: { lookup, echo },
    }
    const first = await runtime.run({ sessionId: 'lone-surrogate-anthropic', agent, input: 'x \ud800' })
    expect(first.error).toBeUndefined()
    expect(first.finishReason).toBe('stop')
    expect(cities).toEqual(['Ly\ud800on'])
    const second = await runtime.run({ sessionId: 'lone-surrogate-anthropic', agent, input: 'once more' })
    expect(second.error).toBeUndefined()
    expect(second.text).toBe('Again.')

    expect(server.requests).toHaveLength(3)
    for (const request of server.requests) expect(findLoneSurrogateEscape(request.rawBody)).toBeUndefined()
    const last = server.requests[2]!.body
    expect(last.system.map((block: { text: string }) => block.text).join('\n')).toContain('Be brief \ufffd.')
    expect(last.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'x \ufffd' }] })
    expect(last.messages[1].content).toContainEqual({ type: 'tool_use', id: 'toolu_lone_1', name: 'lookup', input: { city: 'Ly\ufffdon' } })
    expect(last.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_lone_1', content: JSON.stringify({ note: 'cut emoji \ufffd here', city: 'Ly\ufffdon' }) },
      { type: 'tool_result', tool_use_id: 'toolu_lone_2', content: 'plain text \ufffd result' },
    ])
    expect(last.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'once more' }] })
  })
})
