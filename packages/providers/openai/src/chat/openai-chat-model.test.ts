// Chat Completions specifics over the real openai client and the loopback wire.
import { collectStream, openaiChatEvents, startScriptedServer, type ScriptedServer } from '@spindle/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createOpenAI } from '../index.js'

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
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
