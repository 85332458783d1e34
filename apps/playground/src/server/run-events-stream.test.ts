// The SSE stream of a run mid-step, while its events are not logged yet (the kernel logs a step's events at its end):
// a client that subscribes late still gets them all at once, and a Last-Event-ID reconnect gets every later event once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSse, startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'

let playground: TestPlayground

beforeAll(async () => {
  // The story streams for about 2.5 s: time enough to subscribe mid-step.
  playground = await startTestPlayground({ demo: { chunkDelayMs: 15 } })
})
afterAll(() => playground.stop())

type Message = { id?: string; event?: string; data: any }

async function storyMidStep(): Promise<string> {
  const session = await playground.call('POST', '/api/sessions', {})
  const started = await playground.call('POST', `/api/sessions/${session.body.session.id}/messages`, { text: 'tell me a long story' })
  expect(started.status).toBe(202)
  const runId: string = started.body.runId
  await new Promise((resolve) => setTimeout(resolve, 500))
  // The scenario: the step streams, and none of its text is in the log yet.
  const { body } = await playground.call('GET', `/api/runs/${runId}`)
  expect(body.run.status).toBe('running')
  expect(body.events.some((event: { type: string }) => event.type === 'text.delta')).toBe(false)
  return runId
}

function events(runId: string, lastEventId?: number): Promise<Response> {
  return fetch(`${playground.origin}/api/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${playground.token}`, ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }) },
  })
}

const agentSeqs = (messages: Message[]) => messages.filter((message) => message.event === 'agent').map((message) => message.data.seq as number)
const gapFreeFromOne = (seqs: number[]) => seqs.length > 0 && [...seqs].sort((a, b) => a - b).every((seq, index) => seq === index + 1)

describe('SSE mid-step', () => {
  it('a client subscribing mid-step gets the events emitted before it subscribed at once (from memory), not at the step end', async () => {
    const runId = await storyMidStep()
    const seen: Message[] = []
    const done = await readSse(
      await events(runId),
      (message) => {
        seen.push(message)
        const deltas = seen.filter((item) => item.data?.type === 'text.delta').length
        return message.data?.type === 'run.finished' || (deltas >= 10 && gapFreeFromOne(agentSeqs(seen)))
      },
      2000,
    )
    expect(done.some((message) => message.data?.type === 'run.finished')).toBe(false)
    expect(gapFreeFromOne(agentSeqs(done))).toBe(true)
    expect(done.filter((message) => message.event === 'agent').map((message) => message.data.type)).toContain('step.started')
    const text = done
      .filter((message) => message.data?.type === 'text.delta')
      .map((message) => message.data.delta)
      .join('')
    expect(text.startsWith('Once upon a time')).toBe(true)
    await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
  })

  it('the SSE id is the seq; a Last-Event-ID reconnect mid-step or after the end gets every later event once, in order', async () => {
    const runId = await storyMidStep()
    const live = await readSse(await events(runId), (message) => message.data?.type === 'text.delta' && Number(message.data.seq) > 30, 2000)
    expect(live.filter((message) => message.event === 'agent').every((message) => Number(message.id) === message.data.seq)).toBe(true)
    const last = Math.max(...agentSeqs(live))
    // Mid-step: the events above the id come from this process's memory (the log does not hold them yet), then live.
    const reconnect = await readSse(await events(runId, last), (message) => message.event === 'agent' && message.data.seq >= last + 5, 2000)
    expect(agentSeqs(reconnect).slice(0, 5)).toEqual([1, 2, 3, 4, 5].map((offset) => last + offset))
    const done = await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
    const terminal = done.events.at(-1).seq
    const after = await readSse(await events(runId, 3), (message) => Number(message.id) >= terminal, 3000)
    expect(agentSeqs(after)).toEqual(done.events.map((event: { seq: number }) => event.seq).filter((seq: number) => seq > 3))
  })
})
