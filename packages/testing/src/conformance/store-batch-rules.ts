// Conformance checks of StoreBatch, spec v1: one batch shared by four stores, results equal to the single methods,
// writes applied in order, all or nothing (with the single method's typed error), events de-duplicated by seq.
import type { BatchedStores, StoreWrite, StoreWriteResult } from '@spindle/core'
import { applyStoreWrite, findStoreBatch } from '@spindle/core/plugin-kit'
import { expect } from 'vitest'
import type { ConformanceChecks } from './harness.js'
import { rejection, rule } from './rule.js'
import { assistantEntry, batchOf, call, event, readState, seed, snapshot, stepWrites, withoutTimes } from './store-batch-samples.js'
import { storeBatchWriteSyncRules } from './store-batch-write-sync-rules.js'
import { unicodeJsonFix, unicodeSamples, userEntry } from './samples.js'

const sameLogicFix =
  'apply each write of the batch with the very code of its single-store method (one internal function called by both), inside one transaction'
const atomicFix =
  'run the whole batch in one transaction (BEGIN IMMEDIATE … COMMIT, or undo the applied writes) and let the failing write’s own typed error (StaleFenceError, NotFoundError) reject write() after rolling back'

/** A batch whose failing write comes after `before` valid writes: third, or after one write of every kind. */
function failingBatches(failing: StoreWrite): Array<{ where: string; writes: StoreWrite[] }> {
  const third = [
    { type: 'session.append', sessionId: 's', entries: [userEntry('lost', 'r')], fence: 12 },
    { type: 'execution.start', execution: call(3, 'lost') },
  ] satisfies StoreWrite[]
  const everyKind: StoreWrite[] = [
    { type: 'session.append', sessionId: 's', entries: [assistantEntry('lost', 'c9'), userEntry('lost too')], fence: 12 },
    { type: 'execution.start', execution: call(3, 'lost') },
    { type: 'execution.start', execution: call(1, 'open') },
    { type: 'execution.finish', key: 'r:1:open', outcome: { status: 'succeeded', result: 'lost' } },
    { type: 'run.events', runId: 'r', events: [event(2), event(3)] },
    { type: 'snapshot.save', snapshot: snapshot(2) },
    { type: 'snapshot.save', snapshot: snapshot(1, { overwritten: true }) },
    { type: 'run.update', runId: 'r', patch: { status: 'completed', step: 9 } },
  ]
  const after: StoreWrite = { type: 'session.append', sessionId: 's', entries: [userEntry('after')] }
  return [
    { where: 'as the 3rd write', writes: [...third, failing, after] },
    { where: 'after a write of every kind', writes: [...everyKind, failing, after] },
  ]
}

/** `alone: false`: the write has no single-method form (expectedLastSeq exists only in a batch). */
const failures: Array<{ id: string; write: StoreWrite; code: string; alone?: false }> = [
  { id: 'stale-fence', write: { type: 'session.append', sessionId: 's', entries: [userEntry('stale')], fence: 9 }, code: 'stale_fence' },
  { id: 'unknown-session', write: { type: 'session.append', sessionId: 'missing', entries: [userEntry('nobody')] }, code: 'not_found' },
  { id: 'finish-never-started', write: { type: 'execution.finish', key: 'r:9:never', outcome: { status: 'succeeded', result: 1 } }, code: 'not_found' },
  { id: 'unknown-run', write: { type: 'run.update', runId: 'missing', patch: { step: 1 } }, code: 'not_found' },
  {
    id: 'sequence-conflict',
    write: { type: 'session.append', sessionId: 's', entries: [userEntry('conflict')], expectedLastSeq: 0 },
    code: 'sequence_conflict',
    alone: false,
  },
]

/**
 * The checks of the StoreBatch conformance kit (one atomic write across the sessions, runs, executions and snapshots
 * stores of a backend), by name; `describeStoreBatch` runs each as a test. A check fails with a
 * `ConformanceError` naming the rule broken and how to fix it.
 */
export const storeBatchRules: ConformanceChecks<BatchedStores> = {
  async 'batch.discovery'({ create }) {
    const stores = await create()
    const batch = await batchOf(stores)
    await rule('batch.shared', 'give the four stores of one backend the same StoreBatch object (specificationVersion "v1")', () => {
      expect(batch.specificationVersion).toBe('v1')
      expect(stores.runs.batch, 'runs.batch').toBe(batch)
      expect(stores.executions.batch, 'executions.batch').toBe(batch)
      expect(stores.snapshots.batch, 'snapshots.batch').toBe(batch)
    })
    await rule('batch.stores', '`batch.stores` must hold exactly the store instances that expose the batch (not copies or wrappers)', () => {
      expect(batch.stores.sessions === stores.sessions, 'batch.stores.sessions is the sessions store').toBe(true)
      expect(batch.stores.runs === stores.runs, 'batch.stores.runs is the runs store').toBe(true)
      expect(batch.stores.executions === stores.executions, 'batch.stores.executions is the executions store').toBe(true)
      expect(batch.stores.snapshots === stores.snapshots, 'batch.stores.snapshots is the snapshots store').toBe(true)
      expect(findStoreBatch({ sessions: stores.sessions, runs: stores.runs, executions: stores.executions, snapshots: stores.snapshots })).toBe(batch)
    })
    const other = await create()
    await rule(
      'batch.find.mixed',
      'each set of stores needs its own batch: findStoreBatch must see a set mixing two backends (or a wrapped store) as unbatched',
      () => {
        expect(other.sessions.batch === batch, 'two sets returned by create() share one batch').toBe(false)
        expect(findStoreBatch({ ...stores, runs: other.runs })).toBeUndefined()
        expect(findStoreBatch({ ...stores, sessions: new Proxy(stores.sessions, {}) })).toBeUndefined()
      },
    )
  },

  async 'batch.results'({ create }) {
    const single = await create()
    const batched = await create()
    await seed(single)
    await seed(batched)
    const batch = await batchOf(batched)
    const before = await readState(batched)
    const expected: StoreWriteResult[] = []
    for (const write of stepWrites()) expected.push(await applyStoreWrite(single, write))
    const results = await rule('batch.write.valid', `a batch of valid writes must resolve; ${sameLogicFix}`, () => batch.write(stepWrites()))
    await rule('batch.results.order', 'write() must resolve with one result per write, in the order of the writes', () => {
      expect(results).toHaveLength(stepWrites().length)
    })
    await rule(
      'batch.in-order',
      `writes must apply in order: two appends get consecutive seqs (expectedLastSeq sees the first), a key started earlier in the batch can be finished; ${sameLogicFix}`,
      () => {
        expect((results[0] as Array<{ seq: number }>).map((entry) => entry.seq)).toEqual([2, 3])
        expect((results[1] as Array<{ seq: number }>).map((entry) => entry.seq)).toEqual([4])
        expect(results[5]).toMatchObject({ key: 'r:2:new', status: 'succeeded', result: { rows: [1, 2] }, attempt: 1 })
      },
    )
    await rule(
      'batch.execution.results',
      'execution writes must return what start/finish return: created and attempt counting, a terminal record returned unchanged',
      () => {
        expect(results[2]).toMatchObject({ created: true, record: { key: 'r:2:new', status: 'started', attempt: 1 } })
        expect(results[3]).toMatchObject({ created: false, record: { key: 'r:1:open', status: 'started', attempt: 2 } })
        const done = before.journal.find((record) => record.key === 'r:1:done')
        expect(results[4]).toEqual({ created: false, record: done })
        expect(results[6]).toEqual(done)
      },
    )
    await rule('batch.run.events.dedupe', 'run.events must ignore a seq stored already (before or earlier in the batch), like appendEvents', async () => {
      const events = await batched.runs.listEvents('r')
      expect(events.map((item) => item.seq)).toEqual([1, 2, 3, 4])
      expect(events.map((item) => (item as { delta?: string }).delta)).toEqual(['delta 1', 'delta 2', 'delta 3', 'delta 4'])
    })
    await rule(
      'batch.results.same-as-single',
      `each result must equal what the single-store method returns for the same write (clock readings aside); ${sameLogicFix}`,
      () => {
        expect(withoutTimes(results)).toEqual(withoutTimes(expected))
      },
    )
    await rule(
      'batch.state.same-as-single',
      `a batch must leave the stores exactly as the same writes made one by one (clock readings aside); ${sameLogicFix}`,
      async () => {
        expect(withoutTimes(await readState(batched))).toEqual(withoutTimes(await readState(single)))
        expect(await batched.runs.getRun('r')).toEqual(results[12])
        expect(await batched.executions.get('r:2:new')).toEqual(results[5])
      },
    )
  },

  async 'batch.atomic'({ create }) {
    const stores = await create()
    await seed(stores)
    const batch = await batchOf(stores)
    for (const failure of failures) {
      for (const { where, writes } of failingBatches(failure.write)) {
        const before = await readState(stores)
        await rule(
          `batch.atomic.${failure.id}`,
          `a batch whose write fails (${failure.id}, ${where}) must write nothing and reject with that write’s typed error; ${atomicFix}`,
          async () => {
            const error = await rejection(() => batch.write(writes), { code: failure.code })
            expect(await readState(stores), 'state after the failed batch').toEqual(before)
            if (failure.alone === false) return
            const alone = await rejection(() => applyStoreWrite(stores, failure.write), { code: failure.code })
            expect((error as Error).name, 'the batch rejects with the class the single method throws').toBe((alone as Error).name)
          },
        )
      }
    }
    await rule(
      'batch.atomic.after',
      `after failed batches the log goes on gap-free and a fence raised by a rolled-back write is forgotten; ${atomicFix}`,
      async () => {
        const [appended] = (await batch.write([{ type: 'session.append', sessionId: 's', entries: [userEntry('next')], fence: 11 }])) as Array<
          Array<{ seq: number }>
        >
        expect(appended!.map((entry) => entry.seq)).toEqual([2])
        expect((await stores.sessions.getSession('s'))?.lastSeq).toBe(2)
      },
    )
  },

  async 'batch.empty'({ create }) {
    const stores = await create()
    await seed(stores)
    const batch = await batchOf(stores)
    const before = await readState(stores)
    await rule('batch.empty', 'write([]) must resolve [] and change nothing', async () => {
      expect(await batch.write([])).toEqual([])
      expect(await readState(stores)).toEqual(before)
    })
  },

  async 'batch.concurrent'({ create }) {
    const stores = await create()
    await seed(stores)
    const batch = await batchOf(stores)
    const calls = Array.from({ length: 24 }, (_, index) =>
      index % 3 === 0
        ? stores.sessions.append('s', [userEntry(`single ${index}`)])
        : batch
            .write([
              { type: 'session.append', sessionId: 's', entries: [userEntry(`batch ${index}a`), userEntry(`batch ${index}b`)] },
              { type: 'run.events', runId: 'r', events: [event(100 + index)] },
            ])
            .then((results) => results[0] as Awaited<ReturnType<typeof stores.sessions.append>>),
    )
    const appended = await rule('batch.concurrent-safe', `parallel batches and appends must all succeed; ${atomicFix}`, () => Promise.all(calls))
    await rule(
      'batch.concurrent.gap-free',
      'parallel batches and single appends must share one gap-free sequence, each call’s entries consecutive (assign seq under the write lock)',
      async () => {
        const seqs = appended.flat().map((entry) => entry.seq)
        expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 2))
        for (const entries of appended) expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, index) => entries[0]!.seq + index))
        expect((await stores.sessions.getSession('s'))?.lastSeq).toBe(seqs.length + 1)
        expect(await stores.runs.listEvents('r')).toHaveLength(1 + 16)
      },
    )
  },

  async 'batch.two-connections'({ create, secondConnection }) {
    const stores = await create()
    await seed(stores)
    const other = await secondConnection!(stores)
    const batches = [await batchOf(stores), await batchOf(other)]
    const appended = await rule('batch.two-connections', `batches from two connections must both commit; ${atomicFix}`, () =>
      Promise.all(
        Array.from({ length: 10 }, async (_, index) => {
          const results = await batches[index % 2]!.write([{ type: 'session.append', sessionId: 's', entries: [userEntry(`${index}`)] }])
          return (results[0] as Array<{ seq: number }>)[0]!.seq
        }),
      ),
    )
    await rule(
      'batch.two-connections.gap-free',
      'batches from two connections must share one gap-free sequence: read lastSeq and insert in the same transaction, in the database',
      async () => {
        expect([...appended].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, index) => index + 2))
        expect((await other.sessions.getSession('s'))?.lastSeq).toBe(11)
      },
    )
  },

  async 'batch.unicode'({ create }) {
    const stores = await create()
    await seed(stores)
    const batch = await batchOf(stores)
    // Every tricky sample in one string; an emoji split between two deltas leaves each event a lone surrogate.
    const text = Object.values(unicodeSamples).join(' | ')
    const json = { text, [`key ${text}`]: [text] }
    const error = { code: 'tool', message: text }
    await rule('batch.unicode', `a batch must store JSON values exactly, as the single methods do: ${unicodeJsonFix}`, async () => {
      await batch.write([
        { type: 'session.append', sessionId: 's', entries: [userEntry(text, 'r')] },
        { type: 'execution.start', execution: { ...call(2, 'unicode'), args: json } },
        { type: 'execution.finish', key: 'r:1:open', outcome: { status: 'succeeded', result: { content: `binary\u0000data ${text}` } } },
        { type: 'run.events', runId: 'r', events: [event(2, '\uD83D'), event(3, '\uDE00'), event(4, text)] },
        { type: 'snapshot.save', snapshot: snapshot(2, json) },
        { type: 'run.update', runId: 'r', patch: { metadata: json, error } },
      ])
      expect((await stores.sessions.listEntries('s', { after: 1 }))[0]).toMatchObject({ message: { role: 'user', content: text }, runId: 'r' })
      expect((await stores.executions.get('r:2:unicode'))?.args).toEqual(json)
      expect((await stores.executions.get('r:1:open'))?.result).toEqual({ content: `binary\u0000data ${text}` })
      expect((await stores.runs.listEvents('r')).map((item) => (item as { delta?: string }).delta)).toEqual(['delta 1', '\uD83D', '\uDE00', text])
      expect((await stores.snapshots.get('r', 2))?.state).toEqual(json)
      expect(await stores.runs.getRun('r')).toMatchObject({ metadata: json, error })
    })
  },

  async 'batch.values-copied'({ create }) {
    const stores = await create()
    await seed(stores)
    const batch = await batchOf(stores)
    const entry = userEntry('original', 'r')
    const execution = call(2, 'copied')
    const saved = snapshot(2, { list: ['a'] })
    const results = await batch.write([
      { type: 'session.append', sessionId: 's', entries: [entry] },
      { type: 'execution.start', execution },
      { type: 'snapshot.save', snapshot: saved },
    ])
    ;(entry as { message: { content: string } }).message.content = 'mutated'
    ;(execution.args as { list: number[] }).list.push(99)
    ;(saved.state.list as string[]).push('mutated')
    ;((results[0] as Array<{ message: { content: string } }>)[0]!.message as { content: string }).content = 'mutated too'
    ;((results[1] as { record: { args: unknown } }).record.args as { list: number[] }).list.push(100)
    await rule(
      'batch.values-copied',
      'a batch must copy values in and out like the single methods: callers mutating inputs or results must not change stored data',
      async () => {
        expect((await stores.sessions.listEntries('s', { after: 1 }))[0]).toMatchObject({ message: { content: 'original' } })
        expect((await stores.executions.get('r:2:copied'))?.args).toEqual({ q: 'copied', list: [2] })
        expect((await stores.snapshots.get('r', 2))?.state).toEqual({ list: ['a'] })
      },
    )
  },
  ...storeBatchWriteSyncRules,
}
