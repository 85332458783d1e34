// The memory RunStore keeps a streamed answer's deltas compact (one DeltaRun per run of consecutive deltas): what it
// returns must be exactly what was appended, whatever the reads' bounds, the deltas' neighbours, or a rollback.
import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../spec/events.js'
import type { StoreWrite } from '../../spec/store-batch.js'
import { memoryStores } from './memory-stores.js'

const base = { runId: 'r', sessionId: 's' }

function delta(seq: number, text = `d${seq} `, type: 'text.delta' | 'reasoning.delta' = 'text.delta', step = 1): AgentEvent {
  return { type, step, delta: text, ...base, seq, timestamp: 1_700_000_000_000 + seq }
}

function other(seq: number, step = 1): AgentEvent {
  return { type: 'step.started', step, ...base, seq, timestamp: 1_700_000_000_000 + seq }
}

/** A log of `count` events: deltas of two steps and types, separated by other events, with a seq gap. */
function mixedLog(): AgentEvent[] {
  const events: AgentEvent[] = [other(1)]
  for (let seq = 2; seq <= 301; seq++) events.push(delta(seq)) // past one seal (256 deltas)
  for (let seq = 302; seq <= 310; seq++) events.push(delta(seq, `think ${seq}`, 'reasoning.delta'))
  events.push(other(311, 2))
  for (let seq = 312; seq <= 320; seq++) events.push(delta(seq, `s2 ${seq}`, 'text.delta', 2))
  // A gap (seq 321 missing), then more deltas of the same step: a new run.
  for (let seq = 322; seq <= 325; seq++) events.push(delta(seq, `after gap ${seq}`, 'text.delta', 2))
  return events
}

describe('MemoryRunStore: compact deltas', () => {
  it('returns every event as appended, for every after / limit window', async () => {
    const { runs } = memoryStores()
    const events = mixedLog()
    // Appended in several writes, so that a run of deltas continues across writes.
    await runs.appendEvents('r', events.slice(0, 100))
    await runs.appendEvents('r', events.slice(100, 250))
    await runs.appendEvents('r', events.slice(250))
    expect(await runs.listEvents('r')).toStrictEqual(events)
    for (const after of [undefined, 0, 1, 2, 150, 257, 258, 301, 305, 310, 311, 320, 321, 323, 325, 400]) {
      for (const limit of [undefined, 0, 1, 3, 100, 1_000]) {
        const expected = events.filter((event) => after === undefined || event.seq > after).slice(0, limit)
        expect(
          await runs.listEvents('r', { ...(after !== undefined && { after }), ...(limit !== undefined && { limit }) }),
          `after ${after}, limit ${limit}`,
        ).toStrictEqual(expected)
      }
    }
  })

  it('keeps a delta with a field more, or a sub-agent’s delta, exactly (the field and parentRunId included)', async () => {
    const { runs } = memoryStores()
    const extra = { ...delta(3), note: 'kept' } as unknown as AgentEvent
    const nested = { ...delta(4), parentRunId: 'parent' } as AgentEvent
    const events = [delta(1), delta(2), extra, nested, { ...delta(5), parentRunId: 'parent' } as AgentEvent, delta(6)]
    await runs.appendEvents('r', events)
    expect(await runs.listEvents('r')).toStrictEqual(events)
    expect(await runs.listEvents('r', { after: 3, limit: 2 })).toStrictEqual(events.slice(3, 5))
  })

  it('hands out copies: changing what was appended or read changes nothing stored', async () => {
    const { runs } = memoryStores()
    const events = [delta(1), delta(2), other(3)]
    await runs.appendEvents('r', events)
    ;(events[0] as { delta: string }).delta = 'changed'
    const read = await runs.listEvents('r')
    ;(read[1] as { delta: string }).delta = 'changed too'
    expect(await runs.listEvents('r')).toStrictEqual([delta(1), delta(2), other(3)])
  })

  it('a failed batch takes back the deltas it added to a run of deltas, across a seal, and the run goes on', async () => {
    const stores = memoryStores()
    await stores.sessions.createSession({ id: 's' })
    const first: AgentEvent[] = []
    for (let seq = 1; seq <= 200; seq++) first.push(delta(seq))
    await stores.runs.appendEvents('r', first)
    const more: AgentEvent[] = []
    for (let seq = 201; seq <= 600; seq++) more.push(delta(seq)) // seals at 256 and 512 on the way
    const failing: StoreWrite = { type: 'session.append', sessionId: 'missing', entries: [{ kind: 'message', message: { role: 'user', content: 'x' } }] }
    await expect(
      stores.sessions.batch!.write([{ type: 'run.events', runId: 'r', events: more }, { type: 'run.events', runId: 'r', events: [other(601)] }, failing]),
    ).rejects.toMatchObject({
      code: 'not_found',
    })
    expect(await stores.runs.listEvents('r')).toStrictEqual(first)
    await stores.runs.appendEvents('r', more.slice(0, 10))
    expect(await stores.runs.listEvents('r', { after: 195 })).toStrictEqual([...first.slice(195), ...more.slice(0, 10)])
  })

  it('events out of order land at their seq beside runs of deltas; a seq already stored is ignored', async () => {
    const { runs } = memoryStores()
    await runs.appendEvents('r', [delta(1), delta(2), delta(3), delta(7), delta(8)])
    await runs.appendEvents('r', [other(5), delta(2, 'duplicate'), delta(4), other(10), delta(6)])
    expect(await runs.listEvents('r')).toStrictEqual([delta(1), delta(2), delta(3), delta(4), other(5), delta(6), delta(7), delta(8), other(10)])
    expect(await runs.listEvents('r', { after: 2, limit: 3 })).toStrictEqual([delta(3), delta(4), other(5)])
  })
})

describe('MemoryRunStore: fractional limits', () => {
  it('a fractional limit is cut down, inside a run of deltas and past it, as listEntries and listRuns do', async () => {
    const { runs } = memoryStores()
    await runs.createRun({ id: 'r', sessionId: 's', request: { input: 'hi' } })
    await runs.appendEvents('r', [other(1), delta(2), delta(3), delta(4), other(5)])
    expect((await runs.listEvents('r', { limit: 1.5 })).map((event) => event.seq)).toEqual([1])
    expect((await runs.listEvents('r', { after: 1, limit: 2.9 })).map((event) => event.seq)).toEqual([2, 3])
    expect((await runs.listEvents('r', { after: 3, limit: 2.5 })).map((event) => event.seq)).toEqual([4, 5])
    expect(await runs.listEvents('r', { limit: 0.5 })).toEqual([])
  })
})
