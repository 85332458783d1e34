// Approvals, kill (a simulated crash) and resume, cancel, and the session gate, on a real SQLite file.
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventLogProblems } from '@spindle/core'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'

let playground: TestPlayground

beforeAll(async () => {
  playground = await startTestPlayground({ demo: { chunkDelayMs: 6 } })
})
afterAll(() => playground.stop())

async function start(text: string, sessionId?: string) {
  const id = sessionId ?? (await playground.call('POST', '/api/sessions', {})).body.session.id
  const started = await playground.call('POST', `/api/sessions/${id}/messages`, { text })
  expect(started.status).toBe(202)
  return { sessionId: id, ...started.body }
}

const seqsOf = (detail: any) => detail.events.map((event: { seq: number }) => event.seq)
// The event rule: numbers only grow, the only holes are the ones a run.resumed declares discarded (a kill's live events).
const gapFree = (detail: any) => eventLogProblems(detail.events).length === 0

describe('approvals', () => {
  it('a delete waits for approval; approving runs it once and the run completes', async () => {
    const sandboxFile = join(playground.dataDir, 'sandbox', 'todo.txt')
    expect(existsSync(sandboxFile)).toBe(true)
    const { runId } = await start('delete todo.txt')
    const suspended = await playground.waitForRun(runId, (detail) => detail.run.status === 'suspended')
    const request = suspended.events.find((event: { type: string }) => event.type === 'approval.requested')
    expect(request).toMatchObject({ toolName: 'delete_file', args: { path: 'todo.txt' } })
    expect(existsSync(sandboxFile)).toBe(true)
    const wrong = await playground.call('POST', `/api/runs/${runId}/approve`, { callId: 'nope', approved: true })
    expect(wrong.status).toBe(404)
    expect(wrong.body.error.message).toContain(`Calls awaiting approval: ${request.callId}`)
    const early = await playground.call('POST', `/api/runs/${runId}/resume`, {})
    expect(early.status).toBe(409)
    expect(early.body.error.message).toContain('approve or deny first')
    expect((await playground.call('POST', `/api/runs/${runId}/approve`, { callId: request.callId, approved: true })).status).toBe(200)
    const done = await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
    expect(done.events.at(-1)).toMatchObject({ type: 'run.finished', text: 'Deleted todo.txt.' })
    expect(existsSync(sandboxFile)).toBe(false)
    expect(done.journal).toEqual([expect.objectContaining({ toolName: 'delete_file', status: 'succeeded', attempt: 1 })])
    expect(gapFree(done)).toBe(true)
  })

  it('a message sent while a run awaits approval waits for the decision, then runs (nothing refused or dropped)', async () => {
    const { sessionId, runId } = await start('delete README.md')
    const suspended = await playground.waitForRun(runId, (detail) => detail.run.status === 'suspended')
    const request = suspended.events.find((event: { type: string }) => event.type === 'approval.requested')
    const waiting = await start('what is 6 * 7?', sessionId)
    expect(waiting).toMatchObject({ queued: true })
    expect((await playground.call('GET', `/api/sessions/${sessionId}/gate`)).body.gate.queued).toBe(1)
    // The server lists it (what a reloaded page shows as queued).
    expect((await playground.call('GET', `/api/sessions/${sessionId}/queue`)).body).toEqual({
      messages: [{ ticket: waiting.ticket, text: 'what is 6 * 7?', queuedAt: expect.any(Number) }],
    })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect((await playground.call('GET', `/api/sessions/${sessionId}/gate`)).body.gate.queued).toBe(1)
    await playground.call('POST', `/api/runs/${runId}/approve`, { callId: request.callId, approved: true })
    await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
    await playground.manager.settle()
    const runs = (await playground.call('GET', `/api/sessions/${sessionId}/runs`)).body.runs
    expect(runs.map((run: { status: string; ticket: string }) => [run.status, run.ticket])).toEqual([
      ['completed', waiting.ticket],
      ['completed', expect.any(String)],
    ])
    const messages = await playground.call('GET', `/api/sessions/${sessionId}/messages`)
    expect(messages.body.entries.at(-1).message.content[0].text).toBe('6 * 7 = 42')
  })

  it('a queued message can be withdrawn: it leaves the queue and never runs; one that has started is refused with 409', async () => {
    const { sessionId, runId } = await start('delete README.md')
    const suspended = await playground.waitForRun(runId, (detail) => detail.run.status === 'suspended')
    const request = suspended.events.find((event: { type: string }) => event.type === 'approval.requested')
    const withdrawn = await start('what is 6 * 7?', sessionId)
    const kept = await start('what is 2 + 2?', sessionId)
    expect([withdrawn.queued, kept.queued]).toEqual([true, true])
    const gone = await playground.call('DELETE', `/api/sessions/${sessionId}/queue/${withdrawn.ticket}`)
    expect(gone).toMatchObject({ status: 200, body: { withdrawn: true } })
    expect((await playground.call('GET', `/api/sessions/${sessionId}/queue`)).body.messages.map((message: { ticket: string }) => message.ticket)).toEqual([
      kept.ticket,
    ])
    expect((await playground.call('DELETE', `/api/sessions/${sessionId}/queue/${withdrawn.ticket}`)).status).toBe(404)
    expect((await playground.call('DELETE', `/api/sessions/${sessionId}/queue/bad%20ticket`)).status).toBe(400)
    await playground.call('POST', `/api/runs/${runId}/approve`, { callId: request.callId, approved: true })
    await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
    await playground.manager.settle()
    // The message behind the withdrawn one ran; the withdrawn one did not.
    const runs = (await playground.call('GET', `/api/sessions/${sessionId}/runs`)).body.runs
    expect(runs.map((run: { status: string; ticket: string }) => [run.status, run.ticket])).toEqual([
      ['completed', kept.ticket],
      ['completed', expect.any(String)],
    ])
    const texts = (await playground.call('GET', `/api/sessions/${sessionId}/messages`)).body.entries.map((entry: { message: { content: unknown } }) =>
      JSON.stringify(entry.message.content),
    )
    expect(texts.some((text: string) => text.includes('6 * 7'))).toBe(false)
    const late = await playground.call('DELETE', `/api/sessions/${sessionId}/queue/${kept.ticket}`)
    expect(late.status).toBe(409)
    expect(late.body.error.message).toContain('cancel that run instead')
  })

  it('a denial goes back to the model with the reason', async () => {
    const { runId } = await start('write keep.txt with "draft"')
    const suspended = await playground.waitForRun(runId, (detail) => detail.run.status === 'suspended')
    const request = suspended.events.find((event: { type: string }) => event.type === 'approval.requested')
    expect(request.toolName).toBe('write_file')
    await playground.call('POST', `/api/runs/${runId}/approve`, { callId: request.callId, approved: false, reason: 'not today' })
    const done = await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
    expect(done.events.at(-1).text).toContain('did not run: The user denied this call: not today')
    expect(existsSync(join(playground.dataDir, 'sandbox', 'keep.txt'))).toBe(false)
  })
})

describe('kill and resume', () => {
  it('kill stops a streaming run like a crash (interrupted, log kept); resume finishes it with a gap-free log', async () => {
    const { runId, sessionId } = await start('tell me a long story')
    await playground.waitForRun(runId, (detail) => detail.run.status === 'running')
    await new Promise((resolve) => setTimeout(resolve, 150))
    const killed = await playground.call('POST', `/api/runs/${runId}/kill`, {})
    expect(killed.status).toBe(200)
    const interrupted = await playground.call('GET', `/api/runs/${runId}`)
    expect(interrupted.body.run.status).toBe('interrupted')
    expect(seqsOf(interrupted.body).at(-1)).toBe(killed.body.lastSeq)
    expect(interrupted.body.events.some((event: { type: string }) => event.type === 'run.finished')).toBe(false)
    const gate = await playground.call('GET', `/api/sessions/${sessionId}/gate`)
    expect(gate.body.gate.holder).toBeUndefined()
    expect((await playground.call('POST', `/api/runs/${runId}/resume`, {})).status).toBe(202)
    const done = await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
    expect(gapFree(done)).toBe(true)
    expect(done.events.filter((event: { type: string }) => event.type === 'run.resumed')).toHaveLength(1)
    expect(done.events.filter((event: { type: string }) => event.type === 'run.finished')).toHaveLength(1)
    expect(done.events.at(-1).text).toContain('The moral: write it down first.')
    const messages = await playground.call('GET', `/api/sessions/${sessionId}/messages`)
    expect(messages.body.entries.map((entry: { message: { role: string } }) => entry.message.role)).toEqual(['user', 'assistant'])
  })

  it('resume refuses a running run (409), and of concurrent resumes of an interrupted run exactly one resumes it', async () => {
    const { runId } = await start('tell me a long story')
    await playground.waitForRun(runId, (detail) => detail.run.status === 'running')
    const running = await playground.call('POST', `/api/runs/${runId}/resume`, {})
    expect(running.status).toBe(409)
    expect(running.body.error.message).toContain(`run "${runId}" is running; only suspended or interrupted runs can be resumed`)
    expect((await playground.call('POST', `/api/runs/${runId}/kill`, {})).status).toBe(200)
    // Started in the same tick, all three read the run interrupted: one claims it, the others are refused.
    const resumes = await Promise.allSettled([1, 2, 3].map(() => playground.manager.resume(runId)))
    expect(resumes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected', 'rejected'])
    for (const outcome of resumes) if (outcome.status === 'rejected') expect(String(outcome.reason)).toContain('is being resumed already')
    // The same over HTTP (the refused ones answer 409), after a second kill.
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect((await playground.call('POST', `/api/runs/${runId}/kill`, {})).status).toBe(200)
    const answers = await Promise.all([1, 2, 3].map(() => playground.call('POST', `/api/runs/${runId}/resume`, {})))
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409, 409])
    for (const refused of answers.filter((answer) => answer.status === 409)) expect(refused.body.error.message).toMatch(/is being resumed already|is running/)
    const done = await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
    // One run.resumed per resume whose events were logged before the next kill (the first one's may not be).
    expect(done.events.filter((event: { type: string }) => event.type === 'run.resumed').length).toBeGreaterThanOrEqual(1)
    expect(done.events.at(-1).text.match(/Once upon a time/g)).toHaveLength(1)
    expect(gapFree(done)).toBe(true)
    expect(done.backgroundError).toBeUndefined()
  })

  it('cancel ends a running run for good', async () => {
    const { runId } = await start('tell me a long story')
    await playground.waitForRun(runId, (detail) => detail.run.status === 'running')
    const cancelled = await playground.call('POST', `/api/runs/${runId}/cancel`, {})
    expect(cancelled.body).toEqual({ cancelled: true })
    const detail = await playground.waitForRun(runId, (body) => body.run.status === 'cancelled')
    expect(detail.run.finishReason).toBe('cancelled')
    expect((await playground.call('POST', `/api/runs/${runId}/resume`, {})).status).toBe(409)
  })
})

describe('session gate', () => {
  it('a second message while a run holds the session is queued, then runs', async () => {
    const first = await start('tell me a long story')
    const gate = await playground.call('GET', `/api/sessions/${first.sessionId}/gate`)
    expect(gate.body.gate.holder).toBe(first.runId)
    const second = await start('what is 2 + 2?', first.sessionId)
    expect(second).toMatchObject({ queued: true, ticket: expect.any(String) })
    expect(second.runId).toBeUndefined()
    const queued = await playground.call('GET', `/api/sessions/${first.sessionId}/gate`)
    expect(queued.body.gate.queued).toBe(1)
    await playground.waitForRun(first.runId, (detail) => detail.run.status === 'completed')
    await playground.manager.settle()
    const runs = await playground.call('GET', `/api/sessions/${first.sessionId}/runs`)
    expect(runs.body.runs.map((run: { status: string }) => run.status)).toEqual(['completed', 'completed'])
    // The ticket names the queued message's run once it exists, so the UI can follow it.
    expect(runs.body.runs[0]).toMatchObject({ ticket: second.ticket, input: [{ role: 'user', content: 'what is 2 + 2?' }] })
    expect(runs.body.runs[1].ticket).toBe(first.ticket)
    const messages = await playground.call('GET', `/api/sessions/${first.sessionId}/messages`)
    expect(messages.body.entries.at(-1).message.content[0].text).toBe('2 + 2 = 4')
  })

  it("a message withdrawn while it waits in the gate's queue leaves it, and never runs", async () => {
    const first = await start('tell me a long story')
    const second = await start('what is 2 + 2?', first.sessionId)
    expect(second.queued).toBe(true)
    expect((await playground.call('GET', `/api/sessions/${first.sessionId}/gate`)).body.gate.queued).toBe(1)
    expect((await playground.call('DELETE', `/api/sessions/${first.sessionId}/queue/${second.ticket}`)).status).toBe(200)
    await expect.poll(async () => (await playground.call('GET', `/api/sessions/${first.sessionId}/gate`)).body.gate.queued).toBe(0)
    await playground.waitForRun(first.runId, (detail) => detail.run.status === 'completed')
    await playground.manager.settle()
    const runs = await playground.call('GET', `/api/sessions/${first.sessionId}/runs`)
    expect(runs.body.runs.map((run: { ticket: string }) => run.ticket)).toEqual([first.ticket])
  })
})

describe('a data folder reached through a symbolic link', () => {
  it('the gated delete works in the sandbox, like the other file tools', async () => {
    const real = mkdtempSync(join(tmpdir(), 'spindle-playground-real-'))
    const link = join(mkdtempSync(join(tmpdir(), 'spindle-playground-link-')), 'data')
    symlinkSync(real, link)
    const linked = await startTestPlayground({ dataDir: link, demo: { chunkDelayMs: 1 } })
    try {
      const sessionId = (await linked.call('POST', '/api/sessions', {})).body.session.id
      const read = await linked.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'read todo.txt' })
      expect((await linked.waitForRun(read.body.runId, (detail) => detail.run.status === 'completed')).events.at(-1).text).toContain('buy milk')
      const started = await linked.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'delete todo.txt' })
      const suspended = await linked.waitForRun(started.body.runId, (detail) => detail.run.status === 'suspended')
      const request = suspended.events.find((event: { type: string }) => event.type === 'approval.requested')
      await linked.call('POST', `/api/runs/${started.body.runId}/approve`, { callId: request.callId, approved: true })
      const done = await linked.waitForRun(started.body.runId, (detail) => detail.run.status === 'completed')
      expect(done.events.at(-1).text).toBe('Deleted todo.txt.')
      expect(existsSync(join(real, 'sandbox', 'todo.txt'))).toBe(false)
      expect(existsSync(join(real, 'sandbox', 'README.md'))).toBe(true)
    } finally {
      await linked.stop()
      rmSync(dirname(link), { recursive: true, force: true })
      rmSync(real, { recursive: true, force: true })
    }
  })
})
