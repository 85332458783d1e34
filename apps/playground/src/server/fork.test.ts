// A fork from a snapshot taken while a tool call waited for approval: the copied call gets a "not executed" result,
// so the fork's history is one a real provider takes (here a loopback OpenAI-compatible server that refuses, as
// OpenAI does, an assistant tool call without a tool message answering it).
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'

type ChatMessage = { role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string }

let provider: Server
let playground: TestPlayground
const requests: ChatMessage[][] = []

function strictProvider(): Server {
  return createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      const messages: ChatMessage[] = JSON.parse(body || '{}').messages ?? []
      requests.push(messages)
      const unanswered = messages.flatMap((message, index) =>
        (message.tool_calls ?? []).filter((call) => !messages.slice(index + 1).some((later) => later.role === 'tool' && later.tool_call_id === call.id)),
      )
      if (unanswered.length) {
        response.writeHead(400, { 'content-type': 'application/json' })
        const message = `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${unanswered.map((call) => call.id).join(', ')}`
        return response.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }))
      }
      const chunk = (delta: object, finish: string | null, usage?: object) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'mock', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write(chunk({ role: 'assistant', content: 'ok' }, null))
      response.write(chunk({}, 'stop', { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }))
      response.end('data: [DONE]\n\n')
    })
  })
}

beforeAll(async () => {
  provider = strictProvider()
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
  const baseURL = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`
  playground = await startTestPlayground({ openai: { baseURL, model: 'mock' } })
})
afterAll(async () => {
  await playground.stop()
  await new Promise((resolve) => provider.close(resolve))
})

describe('a fork from a run awaiting approval', () => {
  it('answers the unanswered call "not executed", and the fork continues with a strict provider', async () => {
    const started = await playground.call('POST', '/api/messages', { text: 'write fork.txt with "f"' })
    const source = await playground.waitForRun(started.body.runId, (detail) => detail.run.status === 'suspended')
    const request = source.events.find((event: { type: string }) => event.type === 'approval.requested')
    const snapshot = source.snapshots.at(-1)
    expect(snapshot.state.pending).toEqual([expect.objectContaining({ callId: request.callId, approval: 'required' })])

    const forked = await playground.call('POST', `/api/runs/${source.run.id}/fork`, { version: snapshot.version })
    expect(forked.status).toBe(201)
    expect(forked.body.notRun).toEqual([request.callId])
    const messages = (await playground.call('GET', `/api/sessions/${forked.body.sessionId}/messages`)).body.entries.map(
      (entry: { message: any }) => entry.message,
    )
    expect(messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool'])
    expect(messages[2].content).toEqual([
      {
        type: 'tool-result',
        toolCallId: request.callId,
        toolName: 'write_file',
        result: { error: expect.stringMatching(/^Not executed: the session was forked before/) },
        isError: true,
      },
    ])
    // The source run still waits for its decision: the fork changed nothing there.
    expect((await playground.call('GET', `/api/runs/${source.run.id}`)).body.run.status).toBe('suspended')

    const next = await playground.call('POST', `/api/sessions/${forked.body.sessionId}/messages`, { text: 'hello', model: 'compatible:mock' })
    expect(next.status).toBe(202)
    const done = await playground.waitForRun(next.body.runId, (detail) => detail.run.status !== 'running' && detail.run.status !== 'queued')
    expect(done.run).toMatchObject({ status: 'completed', finishReason: 'stop' })
    expect(done.events.at(-1).text).toBe('ok')
    expect(requests.at(-1)!.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user'])
    await playground.call('POST', `/api/runs/${source.run.id}/cancel`, {})
  })

  it('a fork from a finished step copies its results as they were (nothing added)', async () => {
    const started = await playground.call('POST', '/api/messages', { text: 'what is 6 * 7?' })
    const detail = await playground.waitForRun(started.body.runId, (body) => body.run.status === 'completed')
    const afterTools = detail.snapshots.find((snapshot: { state: { step: number } }) => snapshot.state.step === 1)
    const forked = await playground.call('POST', `/api/runs/${detail.run.id}/fork`, { version: afterTools.version })
    expect(forked.body).toMatchObject({ copied: 3, notRun: [] })
    const messages = (await playground.call('GET', `/api/sessions/${forked.body.sessionId}/messages`)).body.entries
    expect(messages.at(-1).message.content[0]).toMatchObject({ toolName: 'calculator', result: { value: 42 } })
  })
})

describe('session ids', () => {
  it("a fork's session id has the scheme of every other session: ses_ and a UUID", async () => {
    const scheme = /^ses_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
    const started = await playground.call('POST', '/api/messages', { text: 'what is 1 + 2?' })
    expect(started.body.sessionId).toMatch(scheme)
    const detail = await playground.waitForRun(started.body.runId, (body) => body.run.status === 'completed')
    for (const snapshot of detail.snapshots.slice(0, 2)) {
      const forked = await playground.call('POST', `/api/runs/${detail.run.id}/fork`, { version: snapshot.version })
      expect(forked.status).toBe(201)
      expect(forked.body.sessionId).toMatch(scheme)
      expect((await playground.call('GET', `/api/sessions/${forked.body.sessionId}`)).body.session.id).toBe(forked.body.sessionId)
    }
    // A session made empty (POST /sessions) has it too.
    const created = await playground.call('POST', '/api/sessions', {})
    expect(created.status).toBe(201)
    expect(created.body.session.id).toMatch(scheme)
  })
})
