// The API against a real server on a real SQLite file: bad requests, runs, search, SSE catch-up, fork.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSse, startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'

let playground: TestPlayground

beforeAll(async () => {
  playground = await startTestPlayground()
})
afterAll(() => playground.stop())

async function newSession(): Promise<string> {
  const { status, body } = await playground.call('POST', '/api/sessions', {})
  expect(status).toBe(201)
  return body.session.id
}

async function completedRun(sessionId: string, text: string) {
  const started = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text })
  expect(started.status).toBe(202)
  expect(started.body.runId).toMatch(/^run_/)
  return playground.waitForRun(started.body.runId, (detail) => detail.run.status === 'completed')
}

describe('bad requests get clear errors', () => {
  it('rejects malformed bodies, unknown ids, unknown models and bad Last-Event-ID', async () => {
    const sessionId = await newSession()
    const empty = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: '   ' })
    expect(empty.status).toBe(400)
    expect(empty.body.error.message).toContain('text: the message is empty')
    const notJson = await playground.call('POST', `/api/sessions/${sessionId}/messages`, '{"text":')
    expect(notJson.status).toBe(400)
    expect(notJson.body.error.code).toBe('bad_json')
    const extra = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'hi', admin: true })
    expect(extra.status).toBe(400)
    const model = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'hi', model: 'openai:gpt-x' })
    expect(model.status).toBe(400)
    expect(model.body.error.message).toContain('unknown model "openai:gpt-x"; available: demo:scripted')
    const missing = await playground.call('GET', '/api/runs/run_missing')
    expect(missing.status).toBe(404)
    expect(missing.body.error.message).toContain('no run "run_missing"')
    expect((await playground.call('GET', '/api/sessions/nope/messages')).status).toBe(404)
    expect((await playground.call('GET', '/api/runs/bad%20id')).status).toBe(400)
    expect((await playground.call('GET', '/api/runs?limit=0')).status).toBe(400)
    expect((await playground.call('GET', '/api/runs?status=sleeping')).status).toBe(400)
    expect((await playground.call('GET', '/api/nothing-here')).status).toBe(404)
    const run = await completedRun(sessionId, 'what is 1 + 1?')
    const badId = await playground.call('GET', `/api/runs/${run.run.id}/events`, undefined, { 'last-event-id': 'abc' })
    expect(badId.status).toBe(400)
    expect(badId.body.error.message).toContain('Last-Event-ID must be a non-negative integer')
    const badFork = await playground.call('POST', `/api/runs/${run.run.id}/fork`, { version: 'one' })
    expect(badFork.status).toBe(400)
    expect((await playground.call('POST', `/api/runs/${run.run.id}/fork`, { version: 99 })).status).toBe(404)
  })
})

describe("actions the run's current state does not allow get 409 Conflict; malformed ones stay 400", () => {
  const conflict = (answer: { status: number; body: any }, message: string | RegExp) => {
    expect(answer.status).toBe(409)
    expect(answer.body).toEqual({ error: { code: 'conflict', message: expect.stringMatching(message) } })
  }

  it('on a completed run: resume, kill, cancel and approve are conflicts; a fork from a missing version is 404', async () => {
    const run = (await completedRun(await newSession(), 'what is 5 + 5?')).run
    conflict(await playground.call('POST', `/api/runs/${run.id}/resume`, {}), /is completed; only suspended or interrupted runs can be resumed/)
    conflict(await playground.call('POST', `/api/runs/${run.id}/kill`, {}), /is completed; only a running run can be killed/)
    conflict(await playground.call('POST', `/api/runs/${run.id}/cancel`, {}), /is completed; only a running, suspended or interrupted run can be cancelled/)
    conflict(await playground.call('POST', `/api/runs/${run.id}/approve`, { callId: 'call_1', approved: true }), /is completed, not awaiting approval/)
    // Nothing changed: the run is as it was.
    expect((await playground.call('GET', `/api/runs/${run.id}`)).body.run).toMatchObject({ status: 'completed', finishReason: 'stop' })
    const missingVersion = await playground.call('POST', `/api/runs/${run.id}/fork`, { version: 99 })
    expect(missingVersion.status).toBe(404)
    expect(missingVersion.body.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('has no snapshot version 99') })
  })

  it("malformed action requests stay 400, whatever the run's state", async () => {
    const run = (await completedRun(await newSession(), 'what is 5 + 6?')).run
    for (const [path, body] of [
      ['approve', { callId: 'call_1' }],
      ['approve', { callId: '', approved: true }],
      ['approve', { callId: 'call_1', approved: 'yes' }],
      ['fork', { version: 'one' }],
      ['fork', { version: -1 }],
      ['fork', {}],
    ] as const) {
      const answer = await playground.call('POST', `/api/runs/${run.id}/${path}`, body)
      expect(answer.status, `${path} ${JSON.stringify(body)}`).toBe(400)
      expect(answer.body.error.code).toBe('bad_request')
    }
  })

  it('on a run awaiting approval: resume before the decision, and a second, different decision, are conflicts', async () => {
    const sessionId = await newSession()
    const started = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'delete README.md' })
    const suspended = await playground.waitForRun(started.body.runId, (detail) => detail.run.status === 'suspended')
    const { callId } = suspended.events.find((event: { type: string }) => event.type === 'approval.requested')
    conflict(await playground.call('POST', `/api/runs/${started.body.runId}/resume`, {}), /waits for a decision on .*; approve or deny first/)
    // A call the run does not have is not found, not a conflict.
    expect((await playground.call('POST', `/api/runs/${started.body.runId}/approve`, { callId: 'call_nope', approved: true })).status).toBe(404)
    expect((await playground.call('POST', `/api/runs/${started.body.runId}/approve`, { callId, approved: false, reason: 'keep it' })).status).toBe(200)
    const denied = await playground.waitForRun(started.body.runId, (detail) => detail.run.status === 'completed')
    expect(denied.journal).toEqual([])
    // The decision stands: approving now conflicts (the run has gone on), and the file was never deleted.
    conflict(await playground.call('POST', `/api/runs/${started.body.runId}/approve`, { callId, approved: true }), /is completed, not awaiting approval/)
    conflict(await playground.call('POST', `/api/runs/${started.body.runId}/cancel`, {}), /is completed/)
  })

  it('two contradictory decisions sent at once: one is taken, the other is a conflict (not a server error)', async () => {
    const sessionId = await newSession()
    const started = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'delete README.md' })
    const suspended = await playground.waitForRun(started.body.runId, (detail) => detail.run.status === 'suspended')
    const { callId } = suspended.events.find((event: { type: string }) => event.type === 'approval.requested')
    const answers = await Promise.all([
      playground.call('POST', `/api/runs/${started.body.runId}/approve`, { callId, approved: false }),
      playground.call('POST', `/api/runs/${started.body.runId}/approve`, { callId, approved: true }),
    ])
    expect(answers.map((answer) => answer.status)).toEqual([200, 409])
    expect(answers[1]!.body.error).toEqual({ code: 'conflict', message: expect.stringMatching(/already denied|not awaiting approval/) })
    const done = await playground.waitForRun(started.body.runId, (detail) => detail.run.status === 'completed')
    expect(done.journal).toEqual([])
  })
})

describe('a first message', () => {
  it('creates its session with the run, and only when the message is accepted', async () => {
    const count = async () => (await playground.call('GET', '/api/sessions?limit=500')).body.sessions.length
    const before = await count()
    const tooLong = await playground.call('POST', '/api/messages', { text: 'z'.repeat(20_001) })
    expect(tooLong.status).toBe(400)
    expect(tooLong.body.error.message).toContain('text: Too big')
    expect((await playground.call('POST', '/api/messages', { text: 'hi', model: 'openai:gpt-x' })).status).toBe(400)
    expect((await playground.call('POST', '/api/messages', { text: '  ' })).status).toBe(400)
    expect(await count()).toBe(before)

    const started = await playground.call('POST', '/api/messages', { text: 'What is 3 * 3?' })
    expect(started.status).toBe(202)
    expect(started.body).toMatchObject({
      sessionId: expect.stringMatching(/^ses_/),
      runId: expect.stringMatching(/^run_/),
      queued: false,
      ticket: expect.any(String),
    })
    const detail = await playground.waitForRun(started.body.runId, (body) => body.run.status === 'completed')
    expect(detail.run.sessionId).toBe(started.body.sessionId)
    expect(detail.events.at(-1).text).toBe('3 * 3 = 9')
    const session = await playground.call('GET', `/api/sessions/${started.body.sessionId}`)
    expect(session.body.session.title).toBe('What is 3 * 3?')
    expect(await count()).toBe(before + 1)
  })

  it('titles the session with its first line, cut between characters (never inside an emoji)', async () => {
    const titleOf = async (text: string) => {
      const started = await playground.call('POST', '/api/messages', { text })
      expect(started.status).toBe(202)
      return (await playground.call('GET', `/api/sessions/${started.body.sessionId}`)).body.session.title as string
    }
    // The 57th UTF-16 unit is the first half of 😀; the family is one grapheme of 5 code points.
    expect(await titleOf(`${'a'.repeat(56)}😀 and more text after it`)).toBe(`${'a'.repeat(56)}😀…`)
    expect(await titleOf(`${'b'.repeat(55)}👨‍👩‍👧 and more text after it`)).toBe(`${'b'.repeat(55)}👨‍👩‍👧 …`)
    // Sixty characters fit, though their UTF-16 length is more.
    expect(await titleOf('😀'.repeat(60))).toBe('😀'.repeat(60))
    expect(await titleOf('short\nsecond line')).toBe('short')
  })

  it('the limit the server enforces is the one the UI is told', async () => {
    const config = await playground.call('GET', '/api/config')
    expect(config.body.limits).toEqual({ messageChars: 20_000 })
    const sessionId = await newSession()
    expect((await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'y'.repeat(20_001) })).status).toBe(400)
    expect((await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: `what is 1 + 1?${' '.repeat(19_990)}` })).status).toBe(202)
  })
})

describe('request bodies', () => {
  const limit = 1024 * 1024

  it('a body over 1 MB is refused with 413 from its Content-Length, before it is read', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(limit) })
    const refused = await playground.call('POST', '/api/messages', big)
    expect(refused.status).toBe(413)
    expect(refused.body.error).toMatchObject({ code: 'body_too_large', message: expect.stringContaining('larger than 1,048,576 bytes') })
    // Just under the limit the body is read (and the message refused for its length, not its size).
    const under = await playground.call('POST', '/api/messages', JSON.stringify({ text: 'x'.repeat(limit - 100) }))
    expect(under.status).toBe(400)
    expect(under.body.error.message).toContain('text: Too big')
  })

  it('a chunked body is refused as soon as it passes the limit, without reading the rest', async () => {
    let sent = 0
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    // 60 MB if read to the end; the server must answer long before.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"text":"'))
        if (sent >= 60 * limit) return controller.close()
        sent += chunk.byteLength
        controller.enqueue(chunk)
      },
    })
    const response = await fetch(`${playground.origin}/api/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${playground.token}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit)
    expect(response.status).toBe(413)
    expect((await response.json()).error.code).toBe('body_too_large')
    expect(sent).toBeLessThan(8 * limit)
  })
})

describe('runs', () => {
  it('a message starts a run at once; the run uses the calculator and answers; detail has events, snapshots, journal', async () => {
    const sessionId = await newSession()
    const detail = await completedRun(sessionId, 'What is 12 * (3 + 4)?')
    expect(detail.run).toMatchObject({ sessionId, status: 'completed', finishReason: 'stop', model: 'demo:scripted' })
    expect(detail.events.map((event: { seq: number }) => event.seq)).toEqual(detail.events.map((_: unknown, index: number) => index + 1))
    expect(detail.events.find((event: { type: string }) => event.type === 'tool.result')).toMatchObject({ toolName: 'calculator', result: { value: 84 } })
    expect(detail.events.at(-1)).toMatchObject({ type: 'run.finished', text: '12 * (3 + 4) = 84' })
    expect(detail.snapshots.length).toBeGreaterThanOrEqual(2)
    expect(detail.journal).toEqual([expect.objectContaining({ toolName: 'calculator', status: 'succeeded' })])
    const messages = await playground.call('GET', `/api/sessions/${sessionId}/messages`)
    expect(messages.body.entries.map((entry: { message: { role: string } }) => entry.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    const gate = await playground.call('GET', `/api/sessions/${sessionId}/gate`)
    expect(gate.body.gate).toMatchObject({ sessionId, queued: 0 })
    expect(gate.body.gate.holder).toBeUndefined()
  })

  it('the calculator answers a large finite result exactly, not Infinity', async () => {
    const detail = await completedRun(await newSession(), 'What is 2^1000?')
    expect(detail.events.at(-1).text).toBe(`2^1000 = ${2 ** 1000}`)
  })

  it('sessions and runs are listed and searched', async () => {
    const sessionId = await newSession()
    const run = await completedRun(sessionId, 'save a note: zebra crossing')
    const sessions = await playground.call('GET', '/api/sessions?q=zebra')
    expect(sessions.body.sessions.map((session: { id: string }) => session.id)).toEqual([sessionId])
    const runs = await playground.call('GET', '/api/runs?q=zebra')
    expect(runs.body.runs.map((summary: { id: string }) => summary.id)).toEqual([run.run.id])
    const bySession = await playground.call('GET', `/api/sessions/${sessionId}/runs`)
    expect(bySession.body.runs).toHaveLength(1)
    const completed = await playground.call('GET', '/api/runs?status=completed&limit=500')
    expect(completed.body.runs.some((summary: { id: string }) => summary.id === run.run.id)).toBe(true)
    expect((await playground.call('GET', '/api/runs?q=no-such-thing-anywhere')).body.runs).toEqual([])
  })

  it('SSE catches up after Last-Event-ID from the log, with gap-free ids, up to the terminal event', async () => {
    const sessionId = await newSession()
    const detail = await completedRun(sessionId, 'list the files')
    const total = detail.events.length
    const response = await fetch(`${playground.origin}/api/runs/${detail.run.id}/events`, {
      headers: { authorization: `Bearer ${playground.token}`, 'last-event-id': '3' },
    })
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    const messages = await readSse(response, (message) => message.data?.type === 'run.finished')
    const seqs = messages.map((message) => message.data.seq)
    expect(seqs).toEqual(Array.from({ length: total - 3 }, (_, index) => index + 4))
    expect(messages.map((message) => Number(message.id))).toEqual(seqs)
  })

  it('SSE streams a live run: every seq exactly once, in order or filled from the log', async () => {
    const sessionId = await newSession()
    const started = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'tell me a long story' })
    const response = await fetch(`${playground.origin}/api/runs/${started.body.runId}/events`, { headers: { authorization: `Bearer ${playground.token}` } })
    // Live events run ahead of the log; the SSE id (what the client has and the log holds) reaches the terminal seq
    // once all arrived and were logged.
    let terminal = Infinity
    const all = await readSse(response, (message) => {
      if (message.data?.type === 'run.finished') terminal = message.data.seq
      return Number(message.id) >= terminal
    })
    const messages = all.filter((message) => message.event === 'agent')
    const seqs = messages.map((message) => message.data.seq).sort((a, b) => a - b)
    expect(seqs.at(-1)).toBe(terminal)
    expect(seqs).toEqual(seqs.map((_, index) => index + 1))
    const text = messages
      .filter((message) => message.data.type === 'text.delta')
      .sort((a, b) => a.data.seq - b.data.seq)
      .map((message) => message.data.delta)
      .join('')
    expect(text).toContain('The moral: write it down first.')
  })

  it('forks a session from a snapshot: the new log copies the messages up to that step', async () => {
    const sessionId = await newSession()
    const detail = await completedRun(sessionId, 'what is 6 * 7?')
    const afterToolStep = detail.snapshots.find((snapshot: { state: { step: number } }) => snapshot.state.step === 1)
    const forked = await playground.call('POST', `/api/runs/${detail.run.id}/fork`, { version: afterToolStep.version })
    expect(forked.status).toBe(201)
    expect(forked.body.copied).toBe(afterToolStep.state.lastSeq)
    const messages = await playground.call('GET', `/api/sessions/${forked.body.sessionId}/messages`)
    expect(messages.body.entries.map((entry: { message: { role: string } }) => entry.message.role)).toEqual(['user', 'assistant', 'tool'])
    const session = await playground.call('GET', `/api/sessions/${forked.body.sessionId}`)
    expect(session.body.session.metadata.forkedFrom).toMatchObject({ sessionId, runId: detail.run.id })
    // The fork is a normal session: a new message continues from the copied log.
    const next = await completedRun(forked.body.sessionId, 'what is 2 ^ 10?')
    expect(next.events.at(-1).text).toBe('2 ^ 10 = 1024')
  })
})
