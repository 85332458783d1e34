// Images a tool returns (MCP's image content, or any tool's) reach the model as image blocks of the tool_result, not as
// base64 text; images the API cannot take stay text. Real SDK, loopback server, exact request body.
import { AgentRuntime, Extensions, defineTool } from '@spindle/core'
import { startAnthropicMessagesServer, type AnthropicMessagesServer } from '@spindle/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAnthropic } from './index.js'

let server: AnthropicMessagesServer
beforeAll(async () => {
  server = await startAnthropicMessagesServer()
})
afterAll(() => server.close())

const png = Buffer.from('\x89PNG 20x20 pixels').toString('base64')

describe('@spindle/anthropic tool results with images', () => {
  it('sends an image of a tool result as an image block, text and other content as text blocks', async () => {
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
    const vector = defineTool({
      name: 'vector',
      description: 'SVG',
      inputSchema: z.object({}),
      execute: () => ({ content: [{ type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zy8+' }] }),
    })
    server.enqueue(
      {
        turn: {
          blocks: [
            { type: 'tool_use', id: 'toolu_img', name: 'chart', input: {} },
            { type: 'tool_use', id: 'toolu_svg', name: 'vector', input: {} },
          ],
        },
      },
      { turn: { blocks: [{ type: 'text', text: 'A rising line.' }] } },
    )
    const runtime = new AgentRuntime(new Extensions())
    const model = createAnthropic({ apiKey: 'sk-ant-test-img', baseURL: server.baseURL })('claude-sonnet-5')
    const output = await runtime.run({ agent: { name: 'viewer', model, tools: { chart, vector } }, input: 'Show me' })
    expect(output.error).toBeUndefined()
    expect(output.text).toBe('A rising line.')
    const last = server.requests[1]!.body
    expect(last.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_img',
          content: [
            { type: 'text', text: 'the chart' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            { type: 'text', text: '{"structuredContent":{"points":3}}' },
          ],
        },
        // SVG is no image type the API takes: it stays the JSON text it was.
        { type: 'tool_result', tool_use_id: 'toolu_svg', content: '{"content":[{"type":"image","mimeType":"image/svg+xml","data":"PHN2Zy8+"}]}' },
      ],
    })
  })
})
