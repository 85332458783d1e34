// A message taken while its session was busy survives a restart of the playground: the next process takes it back,
// with its ticket, behind the run it waited for, and runs it once that run is decided.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

async function open(dataDir: string): Promise<TestPlayground> {
  const playground = await startTestPlayground({ dataDir })
  cleanups.push(() => playground.close().catch(() => {}))
  return playground
}

describe('queued messages across a restart', () => {
  it('a graceful restart keeps them, in order; they run once the run they wait for is decided', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'spindle-playground-queue-'))
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
    let playground = await open(dataDir)
    const started = await playground.call('POST', '/api/messages', { text: 'delete README.md' })
    const { sessionId, runId } = started.body
    await playground.waitForRun(runId, (detail) => detail.run.status === 'suspended')
    const first = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'what is 6 * 7?' })
    const second = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'what is 2 + 3?' })
    expect([first.body.queued, second.body.queued]).toEqual([true, true])
    await playground.close()

    playground = await open(dataDir)
    const queue = await playground.call('GET', `/api/sessions/${sessionId}/queue`)
    expect(queue.body.messages.map((message: { ticket: string; text: string }) => [message.ticket, message.text])).toEqual([
      [first.body.ticket, 'what is 6 * 7?'],
      [second.body.ticket, 'what is 2 + 3?'],
    ])
    expect((await playground.call('GET', `/api/sessions/${sessionId}/gate`)).body.gate.queued).toBe(2)
    const suspended = await playground.waitForRun(runId, (detail) => detail.run.status === 'suspended')
    const { callId } = suspended.events.find((event: { type: string }) => event.type === 'approval.requested')
    expect((await playground.call('POST', `/api/runs/${runId}/approve`, { callId, approved: false })).status).toBe(200)
    await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
    await playground.manager.settle()
    const runs = (await playground.call('GET', `/api/sessions/${sessionId}/runs`)).body.runs
    // Newest first: each message ran once, with its own ticket, in the order sent.
    expect(runs.map((run: { status: string; ticket: string }) => [run.status, run.ticket])).toEqual([
      ['completed', second.body.ticket],
      ['completed', first.body.ticket],
      ['completed', started.body.ticket],
    ])
    const answers = (await playground.call('GET', `/api/sessions/${sessionId}/messages`)).body.entries
      .filter((entry: { message: { role: string } }) => entry.message.role === 'assistant')
      .map((entry: { message: { content: Array<{ type: string; text?: string }> } }) => entry.message.content.find((part) => part.type === 'text')?.text)
      .filter(Boolean)
    expect(answers.slice(-2)).toEqual(['6 * 7 = 42', '2 + 3 = 5'])
    expect((await playground.call('GET', `/api/sessions/${sessionId}/queue`)).body.messages).toEqual([])
  })
})
