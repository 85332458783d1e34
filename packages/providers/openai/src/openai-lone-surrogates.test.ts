// A lone surrogate (input, instructions, tool arguments, a tool result, an embedded text) must not poison a session:
// the loopback server refuses a body holding one with a 400, so every request must carry U+FFFD instead.
import { AgentRuntime, Extensions, defineTool } from '@spindle/core'
import {
  findLoneSurrogateEscape,
  openaiChatWire,
  openaiEmbeddingsResponse,
  openaiLoneSurrogateRejection,
  openaiResponsesWire,
  startScriptedServer,
  type ScriptedServer,
  type WireAdapter,
} from '@spindle/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createOpenAI } from './index.js'

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer({ rejectRequest: openaiLoneSurrogateRejection })
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
})

const provider = () => createOpenAI({ apiKey: 'sk-test-lone', baseURL: `${server.url}/v1`, maxRetries: 0 })

describe('@spindle/openai sends well-formed strings only', () => {
  const cases: Array<{ api: 'responses' | 'chat'; wire: WireAdapter }> = [
    { api: 'responses', wire: openaiResponsesWire },
    { api: 'chat', wire: openaiChatWire },
  ]
  for (const { api, wire } of cases) {
    it(`runs a session whose input, instructions, tool arguments and tool results hold lone surrogates, and runs it again (${api})`, async () => {
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
        wire.streamTurn({
          toolCalls: [
            // The arguments' JSON text escapes a lone surrogate, as a model's output may.
            { id: 'call_lone_1', name: 'lookup', argumentChunks: ['{"city":"Ly\\ud800on"}'] },
            { id: 'call_lone_2', name: 'echo', argumentChunks: ['{}'] },
          ],
        }),
        wire.streamTurn({ text: ['Done.'] }),
        wire.streamTurn({ text: ['Again.'] }),
      )
      const runtime = new AgentRuntime(new Extensions())
      const model = api === 'responses' ? provider().responses('gpt-4o') : provider().chat('gpt-4o')
      const agent = { name: 'surrogates', instructions: 'Be brief \udfff.', model, tools: { lookup, echo } }
      const sessionId = `lone-surrogate-${api}`
      const first = await runtime.run({ sessionId, agent, input: 'x \ud800' })
      expect(first.error).toBeUndefined()
      expect(first.finishReason).toBe('stop')
      expect(cities).toEqual(['Ly\ud800on'])
      const second = await runtime.run({ sessionId, agent, input: 'once more' })
      expect(second.error).toBeUndefined()
      expect(second.text).toBe('Again.')

      expect(server.requests).toHaveLength(3)
      for (const request of server.requests) expect(findLoneSurrogateEscape(request.rawBody)).toBeUndefined()
      const last = server.requests[2]!.body
      const lookupResult = JSON.stringify({ note: 'cut emoji \ufffd here', city: 'Ly\ufffdon' })
      if (api === 'responses') {
        expect(last.input.slice(0, 2)).toEqual([
          { role: 'system', content: 'Be brief \ufffd.' },
          { role: 'user', content: 'x \ufffd' },
        ])
        expect(last.input).toContainEqual({ type: 'function_call', call_id: 'call_lone_1', name: 'lookup', arguments: '{"city":"Ly\ufffdon"}' })
        expect(last.input).toContainEqual({ type: 'function_call_output', call_id: 'call_lone_1', output: lookupResult })
        expect(last.input).toContainEqual({ type: 'function_call_output', call_id: 'call_lone_2', output: 'plain text \ufffd result' })
      } else {
        expect(last.messages.slice(0, 2)).toEqual([
          { role: 'system', content: 'Be brief \ufffd.' },
          { role: 'user', content: 'x \ufffd' },
        ])
        expect(last.messages[2].tool_calls[0].function).toEqual({ name: 'lookup', arguments: '{"city":"Ly\ufffdon"}' })
        expect(last.messages).toContainEqual({ role: 'tool', tool_call_id: 'call_lone_1', content: lookupResult })
        expect(last.messages).toContainEqual({ role: 'tool', tool_call_id: 'call_lone_2', content: 'plain text \ufffd result' })
      }
    })
  }

  it('embeds texts holding lone surrogates', async () => {
    server.enqueue(
      openaiEmbeddingsResponse([
        [1, 0],
        [0, 1],
      ]),
    )
    const result = await provider().embedding('text-embedding-3-small').embed(['x \ud800', 'fine 😀'])
    expect(result.embeddings).toEqual([
      [1, 0],
      [0, 1],
    ])
    expect(server.requests[0]!.body.input).toEqual(['x \ufffd', 'fine 😀'])
  })
})
