// The SSE stream of a run mid-step, while its events are not logged yet (the kernel logs a step's events at its end):
// a client that subscribes late still gets them all at once, and the SSE ids never vouch for unlogged events.
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
  return fetch(`${playground.origin}/api/runs/${runId}/events`, { headers: { authorization: `Bearer ${playground.token}`, ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }) } })
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
    const text = done.filter((message) => message.data?.type === 'text.delta').map((message) => message.data.delta).join('')
    expect(text.startsWith('Once upon a time')).toBe(true)
    await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
  })

  it('SSE ids never run ahead of the log; a Last-Event-ID the log does not reach (a dead process sent it) resets the client to the log', async () => {
    const runId = await storyMidStep()
    const live = await readSse(await events(runId), (message) => message.data?.type === 'text.delta' && Number(message.data.seq) > 30, 2000)
    const highestId = Math.max(...live.map((message) => Number(message.id ?? 0)))
    const logged = (await playground.call('GET', `/api/runs/${runId}`)).body.events.at(-1).seq
    expect(highestId).toBeLessThanOrEqual(logged)
    expect(Math.max(...agentSeqs(live))).toBeGreaterThan(logged)

    // An id above the log's end: the client is told to drop what it holds above the log, then gets the rest.
    const reconnect = await readSse(await events(runId, 10_000), (message) => message.event === 'agent', 2000)
    expect(reconnect[0]).toMatchObject({ event: 'reset', data: { seq: expect.any(Number) } })
    expect(reconnect[0]!.data.seq).toBeLessThan(10_000)
    expect(reconnect[0]!.data.seq).toBeGreaterThanOrEqual(logged)
    expect(reconnect[1]!.data.seq).toBe(reconnect[0]!.data.seq + 1)

    // Once the run ended and its log holds everything, the id reaches the terminal event.
    const done = await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
    const terminal = done.events.at(-1).seq
    const after = await readSse(await events(runId, 3), (message) => Number(message.id) >= terminal, 3000)
    expect(agentSeqs(after)).toEqual(Array.from({ length: terminal - 3 }, (_, index) => index + 4))
  })
})
