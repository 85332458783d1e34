// A real-sized image from a tool (a 100 KB PNG, three times maxToolOutputBytes) reaches the model whole, as an
// input_image of the Responses API's function_call_output (and as an image_url for Chat Completions): images are kept
// out of the text cut. Real SDK, loopback server.
import { AgentRuntime, Extensions, defineTool } from '@spindle/core'
import { openaiChatWire, openaiResponsesWire, startScriptedServer, type ScriptedServer, noisePng } from '@spindle/testing'
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

const photo = noisePng(160, 160).toString('base64')
const camera = defineTool({
  name: 'camera',
  description: 'Takes a photo',
  inputSchema: z.object({}),
  execute: () => ({
    content: [
      { type: 'text', text: 'a photo' },
      { type: 'image', mimeType: 'image/png', data: photo },
    ],
  }),
})

async function runWith(api: 'responses' | 'chat') {
  const wire = api === 'responses' ? openaiResponsesWire : openaiChatWire
  server.enqueue(wire.streamTurn({ toolCalls: [{ id: 'call_photo', name: 'camera', argumentChunks: ['{}'] }] }), wire.streamTurn({ text: ['Noise.'] }))
  const provider = createOpenAI({ apiKey: 'sk-test-img', baseURL: `${server.url}/v1`, maxRetries: 0 })
  const output = await new AgentRuntime(new Extensions()).run({
    agent: { name: 'viewer', model: api === 'responses' ? provider.responses('gpt-4o') : provider.chat('gpt-4o'), tools: { camera } },
    input: 'Show me',
  })
  expect(output.error).toBeUndefined()
  expect(output.text).toBe('Noise.')
  return server.requests[1]!.body
}

describe('@spindle/openai: real-sized images from tools', () => {
  it('Responses API: a 100 KB PNG arrives whole as an input_image, not as cut base64 text', async () => {
    expect(photo.length).toBeGreaterThan(100_000)
    const body = await runWith('responses')
    expect(body.input.at(-1)).toEqual({
      type: 'function_call_output',
      call_id: 'call_photo',
      output: [
        { type: 'input_text', text: 'a photo' },
        { type: 'input_image', image_url: `data:image/png;base64,${photo}`, detail: 'auto' },
      ],
    })
  })

  it('Chat Completions: the 100 KB PNG arrives whole as an image_url of the user message after the tool message', async () => {
    const body = await runWith('chat')
    const images = body.messages.at(-1).content.filter((part: { type: string }) => part.type === 'image_url')
    expect(images).toEqual([{ type: 'image_url', image_url: { url: `data:image/png;base64,${photo}` } }])
  })
})
