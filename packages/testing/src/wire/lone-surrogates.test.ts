// The loopback servers refuse a body holding a lone surrogate as the real APIs do, whatever is scripted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnthropicMessagesServer, type AnthropicMessagesServer } from './anthropic-messages-server.js'
import { findLoneSurrogateEscape, openaiLoneSurrogateRejection } from './lone-surrogates.js'
import { startScriptedServer, type ScriptedServer } from './sse-server.js'

describe('findLoneSurrogateEscape', () => {
  it('finds unpaired escapes the way a strict JSON parser reports them, and only those', () => {
    expect(findLoneSurrogateEscape(JSON.stringify({ text: 'x \ud800' }))).toEqual({ problem: 'no low surrogate in string', index: 17 })
    expect(findLoneSurrogateEscape(JSON.stringify(['\udc00 low alone']))?.problem).toBe('invalid high surrogate in string')
    expect(findLoneSurrogateEscape('["\\ud800\\u0041"]')?.problem).toBe('invalid low surrogate in string')
    expect(findLoneSurrogateEscape(JSON.stringify({ ['key \ud83d']: 1 }))?.problem).toBe('no low surrogate in string')
    for (const fine of ['😀 paired', '\\ud800 as text', '\ufffd replaced', 'a "quoted \\" string"'])
      expect(findLoneSurrogateEscape(JSON.stringify({ fine }))).toBeUndefined()
    expect(findLoneSurrogateEscape('{"pair":"\\ud83d\\ude00"}')).toBeUndefined()
  })
})

describe('loopback servers refuse lone surrogates', () => {
  let anthropic: AnthropicMessagesServer
  let openai: ScriptedServer
  beforeAll(async () => {
    anthropic = await startAnthropicMessagesServer()
    openai = await startScriptedServer({ rejectRequest: openaiLoneSurrogateRejection })
  })
  afterAll(async () => {
    await anthropic.close()
    await openai.close()
  })

  const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

  it('Anthropic: 400 with the API error body, before the queued reply, which stays queued', async () => {
    anthropic.enqueue({ turn: { blocks: [{ type: 'text', text: 'ok' }] } })
    const body = { model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'x \ud800' }] }
    const response = await post(`${anthropic.baseURL}/v1/messages`, body)
    expect(response.status).toBe(400)
    const column = JSON.stringify(body).indexOf('\\ud800') + 6
    expect(await response.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: `The request body is not valid JSON: no low surrogate in string: line 1 column ${column + 1} (char ${column})`,
      },
      request_id: expect.stringMatching(/^req_/),
    })
    expect(anthropic.pending).toBe(1)
    const fine = await post(`${anthropic.baseURL}/v1/messages`, { ...body, messages: [{ role: 'user', content: 'x \ufffd' }] })
    expect(fine.status).toBe(200)
    await fine.text()
  })

  it('OpenAI: 400 invalid_request_error for a body it cannot parse', async () => {
    const response = await post(`${openai.url}/v1/responses`, { input: 'x \udfff' })
    expect(response.status).toBe(400)
    const json = (await response.json()) as { error: { type: string; message: string } }
    expect(json.error.type).toBe('invalid_request_error')
    expect(json.error.message).toMatch(/^We could not parse the JSON body of your request/)
  })
})
