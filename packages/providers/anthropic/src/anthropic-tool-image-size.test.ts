// A real-sized image from a tool (a 100 KB PNG, three times maxToolOutputBytes) reaches the model whole, as an image
// block: images are kept out of the text cut. One over the image bound (6 MB) is stored as an artifact and named.
// Real SDK, loopback server.
import { randomBytes } from 'node:crypto'
import { AgentRuntime, Extensions, defineTool } from '@spindle/core'
import { startAnthropicMessagesServer, type AnthropicMessagesServer, noisePng } from '@spindle/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAnthropic } from './index.js'

let server: AnthropicMessagesServer
beforeAll(async () => {
  server = await startAnthropicMessagesServer()
})
afterAll(() => server.close())

describe('@spindle/anthropic: real-sized images from tools', () => {
  it('a 100 KB PNG goes whole as an image block; a 6 MB one is kept as an artifact and named in a note', async () => {
    const photo = noisePng(160, 160).toString('base64')
    expect(photo.length).toBeGreaterThan(100_000)
    const huge = randomBytes(6_000_000).toString('base64')
    const camera = defineTool({
      name: 'camera',
      description: 'Takes a photo',
      inputSchema: z.object({ size: z.enum(['normal', 'huge']) }),
      execute: ({ size }) => ({
        content: [
          { type: 'text', text: `a ${size} photo` },
          { type: 'image', mimeType: 'image/png', data: size === 'huge' ? huge : photo },
        ],
      }),
    })
    server.enqueue(
      { turn: { blocks: [{ type: 'tool_use', id: 'toolu_photo', name: 'camera', input: { size: 'normal' } }] } },
      { turn: { blocks: [{ type: 'tool_use', id: 'toolu_huge', name: 'camera', input: { size: 'huge' } }] } },
      { turn: { blocks: [{ type: 'text', text: 'Noise, twice.' }] } },
    )
    const runtime = new AgentRuntime(new Extensions())
    const model = createAnthropic({ apiKey: 'sk-ant-test-img', baseURL: server.baseURL })('claude-sonnet-5')
    const output = await runtime.run({ agent: { name: 'viewer', model, tools: { camera } }, input: 'Show me' })
    expect(output.error).toBeUndefined()
    expect(output.text).toBe('Noise, twice.')

    const second = server.requests[1]!.body
    expect(second.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_photo',
          content: [
            { type: 'text', text: 'a normal photo' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: photo } },
          ],
        },
      ],
    })
    const third = server.requests[2]!.body
    const result = third.messages.at(-1).content[0]
    expect(result.tool_use_id).toBe('toolu_huge')
    // No image left in it: the result goes as the text it now is, the note naming the artifact.
    const note = JSON.parse(result.content as string) as { content: Array<{ type: string; text: string }> }
    expect(note.content).toEqual([
      { type: 'text', text: 'a huge photo' },
      {
        type: 'text',
        text: expect.stringMatching(
          /^\[image\/png of 6000000 bytes over the 5000000-byte bound on images in one tool result; kept as artifact [0-9a-f]{64}\]$/,
        ),
      },
    ])
    // The huge image is not in the request: the earlier photo is, once.
    expect(JSON.stringify(third).length).toBeLessThan(photo.length + 20_000)
    const artifactId = /artifact ([0-9a-f]{64})/.exec(note.content[1]!.text)![1]!
    expect(await runtime.artifacts.head(artifactId)).toMatchObject({ mediaType: 'image/png', size: 6_000_000 })
  })
})
