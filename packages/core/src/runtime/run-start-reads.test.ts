// What a run's start reads: on a session with entries, the session row once (its window, which also says the session
// exists); on an empty session, as before: the row again to know the session exists, and once more for its window.
import { describe, expect, it } from 'vitest'
import { AgentRuntime, Extensions, memoryStores, mockModel, type Stores } from '../index.js'

/** The memory stores, with every `getSession` counted. */
function countingStores(): { stores: Stores; reads: { getSession: number } } {
  const stores = memoryStores()
  const reads = { getSession: 0 }
  const getSession = stores.sessions.getSession.bind(stores.sessions)
  stores.sessions.getSession = (id) => {
    reads.getSession++
    return getSession(id)
  }
  return { stores, reads }
}

describe('a run start', () => {
  it('reads the session row once on a session with entries, and the run still sees the whole history', async () => {
    const { stores, reads } = countingStores()
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const model = mockModel([{ text: 'first answer' }, { text: 'second answer' }])
    await runtime.run({ agent: { name: 'a', model }, input: 'first question', sessionId: 's' })
    reads.getSession = 0
    const output = await runtime.run({ agent: { name: 'a', model }, input: 'second question', sessionId: 's' })
    expect(output.text).toBe('second answer')
    expect(reads.getSession).toBe(1)
    const seen = JSON.stringify(model.calls[1]!.messages)
    expect(seen).toContain('first question')
    expect(seen).toContain('first answer')
    expect(seen).toContain('second question')
    const entries = await runtime.sessions.listEntries('s')
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4])
  })

  it('on an empty session (created, no entries), reads it three times, as before, and appends from seq 1', async () => {
    const { stores, reads } = countingStores()
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    await runtime.sessions.createSession({ id: 'empty' })
    reads.getSession = 0
    const output = await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'ok' }]) }, input: 'go', sessionId: 'empty' })
    expect(output.finishReason).toBe('stop')
    expect(reads.getSession).toBe(3)
    expect((await runtime.sessions.listEntries('empty')).map((entry) => entry.seq)).toEqual([1, 2])
  })

  it('on a session named by the caller that does not exist yet, creates it', async () => {
    const { stores } = countingStores()
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const output = await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'ok' }]) }, input: 'go', sessionId: 'fresh' })
    expect(output.finishReason).toBe('stop')
    expect(await runtime.sessions.getSession('fresh')).toMatchObject({ id: 'fresh', lastSeq: 2 })
  })
})
