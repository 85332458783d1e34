// The memory batch takes back what it applied when a later write fails, from the undo log its stores record:
// the cases the StoreBatch conformance rules do not reach (a run's first events, journal key and snapshot; events
// stored out of order; a repeated start), and a failing last write that leaves nothing behind.
import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../spec/events.js'
import type { StoreBatch, StoreWrite } from '../../spec/store-batch.js'
import type { Stores } from '../../spec/stores.js'
import { memoryStores } from './memory-stores.js'

function event(runId: string, seq: number): AgentEvent {
  return { type: 'text.delta', runId, sessionId: 's', seq, timestamp: 1_700_000_000_000 + seq, step: 1, delta: `delta ${seq}` }
}

/** A write that fails in the memory stores: an append to a session that does not exist. */
const failing: StoreWrite = { type: 'session.append', sessionId: 'missing', entries: [{ kind: 'message', message: { role: 'user', content: 'x' } }] }

async function setup(): Promise<{ stores: Stores; batch: StoreBatch }> {
  const stores = memoryStores()
  await stores.sessions.createSession({ id: 's' })
  await stores.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: 'first' } }], { fence: 3 })
  await stores.runs.createRun({ id: 'old', sessionId: 's', request: { input: 'first' } })
  return { stores, batch: stores.sessions.batch! }
}

async function state(stores: Stores, runId: string) {
  return {
    session: await stores.sessions.getSession('s'),
    entries: await stores.sessions.listEntries('s'),
    events: await stores.runs.listEvents(runId),
    journal: await stores.executions.listByRun(runId),
    snapshots: await stores.snapshots.list(runId),
    run: await stores.runs.getRun('old'),
  }
}

describe('MemoryStoreBatch rollback', () => {
  it('takes back a run’s first events, journal key and snapshot, and the append before them', async () => {
    const { stores, batch } = await setup()
    const before = await state(stores, 'new')
    const writes: StoreWrite[] = [
      {
        type: 'session.append',
        sessionId: 's',
        entries: [{ kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'lost' }] } }],
        fence: 5,
      },
      { type: 'execution.start', execution: { key: 'new:1:c', runId: 'new', step: 1, callId: 'c', toolName: 't', args: { a: 1 } } },
      { type: 'run.events', runId: 'new', events: [event('new', 1), event('new', 2)] },
      { type: 'snapshot.save', snapshot: { runId: 'new', sessionId: 's', version: 1, state: { step: 1 }, createdAt: 1 } },
      { type: 'run.update', runId: 'old', patch: { status: 'completed', step: 4 } },
      failing,
    ]
    await expect(batch.write(writes)).rejects.toMatchObject({ code: 'not_found' })
    expect(await state(stores, 'new')).toEqual(before)
    expect(await stores.executions.get('new:1:c')).toBeUndefined()
    // Nothing is left half-made: the same writes then succeed from a clean slate (seq 2 again, fence 5 accepted,
    // a new journal list holding only its key, a log of exactly the two events).
    const results = await batch.write(writes.slice(0, -1))
    expect((results[0] as Array<{ seq: number }>).map((entry) => entry.seq)).toEqual([2])
    expect((results[1] as { created: boolean }).created).toBe(true)
    expect((await stores.executions.listByRun('new')).map((record) => record.key)).toEqual(['new:1:c'])
    expect((await stores.runs.listEvents('new')).map((stored) => stored.seq)).toEqual([1, 2])
    expect((await stores.snapshots.list('new')).map((snapshot) => snapshot.version)).toEqual([1])
  })

  it('takes back events stored out of order, a repeated start’s attempt, a finish and a replaced snapshot', async () => {
    const { stores, batch } = await setup()
    await stores.runs.appendEvents('old', [event('old', 1), event('old', 2), event('old', 4)])
    await stores.executions.start({ key: 'old:1:c', runId: 'old', step: 1, callId: 'c', toolName: 't', args: {} })
    await stores.executions.start({ key: 'old:1:d', runId: 'old', step: 1, callId: 'd', toolName: 't', args: {} })
    await stores.snapshots.save({ runId: 'old', sessionId: 's', version: 1, state: { step: 1 }, createdAt: 1 })
    const before = await state(stores, 'old')
    const writes: StoreWrite[] = [
      { type: 'run.events', runId: 'old', events: [event('old', 3), event('old', 5)] },
      { type: 'execution.start', execution: { key: 'old:1:c', runId: 'old', step: 1, callId: 'c', toolName: 't', args: {} } },
      { type: 'execution.finish', key: 'old:1:d', outcome: { status: 'succeeded', result: 7 } },
      { type: 'snapshot.save', snapshot: { runId: 'old', sessionId: 's', version: 1, state: { step: 'replaced' }, createdAt: 2 } },
      failing,
    ]
    await expect(batch.write(writes)).rejects.toMatchObject({ code: 'not_found' })
    expect(await state(stores, 'old')).toEqual(before)
    expect((await stores.runs.listEvents('old')).map((stored) => stored.seq)).toEqual([1, 2, 4])
    expect((await stores.executions.get('old:1:c'))?.attempt).toBe(1)
    expect((await stores.executions.get('old:1:d'))?.status).toBe('started')
  })

  it('a failing last write (or a batch of one) leaves nothing behind', async () => {
    const { stores, batch } = await setup()
    const before = await state(stores, 'old')
    // A class instance holding a function: structuredClone (the copy of anything but plain data) rejects it.
    const uncloneable = {
      kind: 'message',
      message: {
        role: 'user',
        content: [
          {
            type: 'text',
            text: 'x',
            extra: new (class {
              run = () => 1
            })(),
          },
        ],
      },
    } as never
    await expect(batch.write([{ type: 'session.append', sessionId: 's', entries: [uncloneable], fence: 9 }])).rejects.toThrow(/could not be cloned/)
    const lastFails: StoreWrite[] = [
      { type: 'run.events', runId: 'old', events: [event('old', 1)] },
      { type: 'session.append', sessionId: 's', entries: [uncloneable], fence: 9 },
    ]
    await expect(batch.write(lastFails)).rejects.toThrow(/could not be cloned/)
    expect(await state(stores, 'old')).toEqual(before)
    const [appended] = (await batch.write([
      { type: 'session.append', sessionId: 's', entries: [{ kind: 'message', message: { role: 'user', content: 'next' } }], fence: 4 },
    ])) as Array<Array<{ seq: number }>>
    expect(appended!.map((entry) => entry.seq)).toEqual([2])
  })
})

describe('MemoryRunStore event writes', () => {
  it('an event that cannot be copied fails the write and leaves the log as it was (a new log and an existing one)', async () => {
    const { stores } = await setup()
    const uncopyable = {
      type: 'tool.call',
      runId: 'old',
      sessionId: 's',
      seq: 3,
      timestamp: 1,
      step: 1,
      callId: 'c',
      toolName: 't',
      args: new (class Handle {
        close = () => {}
      })(),
    } as unknown as AgentEvent
    await expect(stores.runs.appendEvents('fresh', [event('fresh', 1), { ...uncopyable, runId: 'fresh', seq: 2 }])).rejects.toThrow()
    expect(await stores.runs.listEvents('fresh')).toEqual([])
    await stores.runs.appendEvents('old', [event('old', 1), event('old', 2)])
    await expect(stores.runs.appendEvents('old', [event('old', 3), { ...uncopyable, seq: 4 }, event('old', 5)])).rejects.toThrow()
    expect((await stores.runs.listEvents('old')).map((stored) => stored.seq)).toEqual([1, 2])
    // The log still takes the next write.
    await stores.runs.appendEvents('old', [event('old', 3)])
    expect((await stores.runs.listEvents('old')).map((stored) => stored.seq)).toEqual([1, 2, 3])
  })
})
