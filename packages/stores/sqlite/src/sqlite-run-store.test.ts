import { DuplicateError, NotFoundError, type AgentEvent } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

const event = (seq: number, delta = `d${seq}`): AgentEvent => ({ type: 'text.delta', step: 1, delta, runId: 'r', sessionId: 's', seq, timestamp: seq })

describe('SqliteRunStore, SqliteExecutionStore, SqliteSnapshotStore', () => {
  it('enforces run id and (session, idempotency key) uniqueness across connections', async () => {
    const path = tempDatabasePath()
    const a = openStores({ path })
    const b = openStores({ path })
    await a.runs.createRun({ id: 'r1', sessionId: 's', request: {}, idempotencyKey: 'k' })
    await expect(b.runs.createRun({ id: 'r1', sessionId: 'other', request: {} })).rejects.toBeInstanceOf(DuplicateError)
    await expect(b.runs.createRun({ id: 'r2', sessionId: 's', request: {}, idempotencyKey: 'k' })).rejects.toThrow(/findRunByIdempotencyKey/)
    await b.runs.createRun({ id: 'r3', sessionId: 'other-session', request: {}, idempotencyKey: 'k' })
    await b.runs.createRun({ id: 'r4', sessionId: 's', request: {} })
    await b.runs.createRun({ id: 'r5', sessionId: 's', request: {} })
    expect((await a.runs.findRunByIdempotencyKey('s', 'k'))?.id).toBe('r1')
    expect((await a.runs.findRunByIdempotencyKey('other-session', 'k'))?.id).toBe('r3')
  })

  it('updates runs: present-but-undefined keys clear, status is indexed for listRuns', async () => {
    const { runs } = openStores({ path: tempDatabasePath() })
    await runs.createRun({ id: 'r', sessionId: 's', request: { input: 'hi' } })
    await runs.updateRun('r', { status: 'running', lease: { owner: 'w1', expiresAt: 10 }, step: 2 })
    expect((await runs.listRuns({ status: 'running' })).map((r) => r.id)).toEqual(['r'])
    const released = await runs.updateRun('r', { lease: undefined, status: 'completed', finishReason: 'stop' })
    expect(released.lease).toBeUndefined()
    expect(released).toMatchObject({ status: 'completed', step: 2, finishReason: 'stop', request: { input: 'hi' } })
    expect(await runs.listRuns({ status: ['running', 'queued'] })).toEqual([])
    expect((await runs.listRuns({ sessionId: 's', status: 'completed' })).map((r) => r.id)).toEqual(['r'])
    await expect(runs.updateRun('missing', { step: 1 })).rejects.toBeInstanceOf(NotFoundError)
  })

  it('appends events idempotently on (run, seq) and pages them by seq', async () => {
    const { runs } = openStores({ path: tempDatabasePath() })
    await runs.appendEvents('r', [event(1), event(2), event(3)])
    await runs.appendEvents('r', [event(2, 'replayed'), event(4)])
    const all = await runs.listEvents('r')
    expect(all.map((e) => e.seq)).toEqual([1, 2, 3, 4])
    expect(all[1]).toEqual(event(2))
    expect((await runs.listEvents('r', { after: 2, limit: 1 })).map((e) => e.seq)).toEqual([3])
  })

  it('keeps the events of one contiguous append as one row, and any other append exactly (retries, gaps, disorder)', async () => {
    const { runs, database } = openStores({ path: tempDatabasePath() })
    const rows = () => database.prepare("SELECT first_seq, last_seq FROM run_events WHERE run_id = 'r' ORDER BY last_seq").raw().all()
    await runs.appendEvents('r', [event(1), event(2), event(3)])
    await runs.appendEvents('r', [event(4), event(5)])
    expect(rows()).toEqual([
      [1, 3],
      [4, 5],
    ])
    // A retry overlapping what is stored keeps only the new seqs, the first version of each.
    await runs.appendEvents('r', [event(4, 'again'), event(5, 'again'), event(6), event(7)])
    // Gaps and disorder: 10 first, then 8 (a duplicate inside the call), then 9 and a stored 2.
    await runs.appendEvents('r', [event(10)])
    await runs.appendEvents('r', [event(8), event(8, 'twice')])
    await runs.appendEvents('r', [event(9), event(2, 'late')])
    await runs.appendEvents('r', [])
    const all = await runs.listEvents('r')
    expect(all.map((e) => [e.seq, e.type === 'text.delta' && e.delta])).toEqual([
      [1, 'd1'],
      [2, 'd2'],
      [3, 'd3'],
      [4, 'd4'],
      [5, 'd5'],
      [6, 'd6'],
      [7, 'd7'],
      [8, 'd8'],
      [9, 'd9'],
      [10, 'd10'],
    ])
    // Rows never overlap: every seq is in exactly one row.
    const ranges = rows() as Array<[number, number]>
    for (let index = 1; index < ranges.length; index++) expect(ranges[index]![0]).toBeGreaterThan(ranges[index - 1]![1])
    // Pages start and stop inside rows.
    for (let after = 0; after <= 10; after++) {
      for (const limit of [1, 2, 3, 7]) {
        const page = await runs.listEvents('r', { after, limit })
        expect(
          page.map((e) => e.seq),
          `after ${after} limit ${limit}`,
        ).toEqual(
          all
            .map((e) => e.seq)
            .filter((seq) => seq > after)
            .slice(0, limit),
        )
      }
    }
    expect(await runs.listEvents('r', { after: 2, limit: 0 })).toEqual([])
    expect(await runs.listEvents('other')).toEqual([])
  })

  it('splits a long append into rows of at most 64 events, read back whole and in order', async () => {
    const { runs, database } = openStores({ path: tempDatabasePath() })
    await runs.appendEvents(
      'r',
      Array.from({ length: 150 }, (_, index) => event(index + 1)),
    )
    const ranges = database.prepare("SELECT first_seq, last_seq FROM run_events WHERE run_id = 'r' ORDER BY last_seq").raw().all()
    expect(ranges).toEqual([
      [1, 64],
      [65, 128],
      [129, 150],
    ])
    expect((await runs.listEvents('r')).map((e) => e.seq)).toEqual(Array.from({ length: 150 }, (_, index) => index + 1))
    expect((await runs.listEvents('r', { after: 100, limit: 40 })).map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, index) => index + 101))
  })

  it('journals executions: started once, attempts counted, terminal records never overwritten', async () => {
    const path = tempDatabasePath()
    const a = openStores({ path })
    const b = openStores({ path })
    const call = { key: 'r:1:c1', runId: 'r', step: 1, callId: 'c1', toolName: 'pay', args: { amount: 5 } }
    const first = await a.executions.start(call)
    const second = await b.executions.start(call)
    expect([first.created, second.created]).toEqual([true, false])
    expect(second.record.attempt).toBe(2)
    const done = await b.executions.finish(call.key, { status: 'succeeded', result: null })
    expect(done).toMatchObject({ status: 'succeeded', result: null })
    const again = await a.executions.finish(call.key, { status: 'failed', error: { code: 'x', message: 'late' } })
    expect(again).toEqual(done)
    expect((await a.executions.start(call)).record).toEqual(done)
    await a.executions.start({ ...call, key: 'r:1:c2', callId: 'c2' })
    expect((await b.executions.listByRun('r')).map((r) => r.callId)).toEqual(['c1', 'c2'])
    await expect(a.executions.finish('nope', { status: 'cancelled' })).rejects.toBeInstanceOf(NotFoundError)
  })

  it('saves snapshots by (run, version), replacing the same version, latest by version', async () => {
    const { snapshots } = openStores({ path: tempDatabasePath() })
    await snapshots.save({ runId: 'r', sessionId: 's', version: 2, state: { step: 2 }, createdAt: 2 })
    await snapshots.save({ runId: 'r', sessionId: 's', version: 1, state: { step: 1 }, createdAt: 1 })
    await snapshots.save({ runId: 'r', sessionId: 's', version: 2, state: { step: 2, replaced: true }, createdAt: 3 })
    expect((await snapshots.latest('r'))?.state).toEqual({ step: 2, replaced: true })
    expect((await snapshots.list('r')).map((s) => s.version)).toEqual([1, 2])
    expect((await snapshots.get('r', 1))?.state).toEqual({ step: 1 })
    await snapshots.deleteRun('r')
    expect(await snapshots.latest('r')).toBeUndefined()
  })
})
