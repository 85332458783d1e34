// Images a tool returns (MCP's image content, or any tool's) reach the model as images: `input_image` items of the
// Responses API's function_call_output; for Chat Completions, whose tool messages take text only, a user message with
// the images right after the tool messages. Real SDK, loopback server, exact request body.
import { AgentRuntime, Extensions, defineTool } from '@spindle/core'
import { openaiChatWire, openaiResponsesWire, startScriptedServer, type ScriptedServer } from '@spindle/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createOpenAI } from './index.js'

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
})

const png = Buffer.from('\x89PNG 20x20 pixels').toString('base64')
const chart = defineTool({
  name: 'chart',
  description: 'Draws a chart',
  inputSchema: z.object({}),
  execute: () => ({
    content: [
      { type: 'text', text: 'the chart' },
      { type: 'image', mimeType: 'image/png', data: png },
    ],
    structuredContent: { points: 3 },
  }),
})

async function runWith(api: 'responses' | 'chat') {
  const wire = api === 'responses' ? openaiResponsesWire : openaiChatWire
  server.enqueue(wire.streamTurn({ toolCalls: [{ id: 'call_img', name: 'chart', argumentChunks: ['{}'] }] }), wire.streamTurn({ text: ['A rising line.'] }))
  const provider = createOpenAI({ apiKey: 'sk-test-img', baseURL: `${server.url}/v1`, maxRetries: 0 })
  const output = await new AgentRuntime(new Extensions()).run({
    agent: { name: 'viewer', model: api === 'responses' ? provider.responses('gpt-4o') : provider.chat('gpt-4o'), tools: { chart } },
    input: 'Show me',
  })
  expect(output.error).toBeUndefined()
  expect(output.text).toBe('A rising line.')
  return server.requests[1]!.body
}

describe('@spindle/openai tool results with images', () => {
  it('Responses API: function_call_output is a list of input_text and input_image items', async () => {
    const body = await runWith('responses')
    expect(body.input.at(-1)).toEqual({
      type: 'function_call_output',
      call_id: 'call_img',
      output: [
        { type: 'input_text', text: 'the chart' },
        { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' },
        { type: 'input_text', text: '{"structuredContent":{"points":3}}' },
      ],
    })
  })

  it('Chat Completions: the tool message names the image, a user message right after carries it', async () => {
    const body = await runWith('chat')
    expect(body.messages.slice(-2)).toEqual([
      {
        role: 'tool',
        tool_call_id: 'call_img',
        content: 'the chart\n[image 1 of call_img (chart): image/png, attached in the next user message]\n{"structuredContent":{"points":3}}',
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images returned by the tool calls above.' },
          { type: 'text', text: 'image 1 of call_img (chart):' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
    ])
  })
})
