// Conformance checks of ExecutionStore, spec v1: the tool-call journal's start / finish rules.
import type { ExecutionStore, NewExecution } from '@spindle/core'
import { expect } from 'vitest'
import { executionCopyOutRules } from './copy-out-rules.js'
import type { ConformanceChecks } from './harness.js'
import { rejection, rule } from './rule.js'
import { expectExactJson, unicodeFix, unicodeOutcome, unicodeSamples } from './samples.js'

function call(runId: string, step: number, callId: string, args: NewExecution['args'] = { q: callId }): NewExecution {
  return { key: `${runId}:${step}:${callId}`, runId, step, callId, toolName: 'search', args }
}

/**
 * The checks of the ExecutionStore conformance kit, by name; `describeExecutionStore` runs each as a test. A check fails with a
 * `ConformanceError` naming the rule broken and how to fix it. Run one alone to narrow a failure:
 *
 * @example
 * await executionStoreRules['execution.start']({ create: () => createMyStore() })
 */
export const executionStoreRules: ConformanceChecks<ExecutionStore> = {
  async 'execution.start'({ create }) {
    const store = await create()
    const { record, created } = await store.start(call('r', 1, 'c1', { q: 'x', n: [1, 2] }))
    await rule('execution.start.new', 'start on a new key must insert a "started" record with attempt 1 and return created: true', async () => {
      expect(created).toBe(true)
      expect(record).toMatchObject({
        key: 'r:1:c1',
        runId: 'r',
        step: 1,
        callId: 'c1',
        toolName: 'search',
        args: { q: 'x', n: [1, 2] },
        status: 'started',
        attempt: 1,
      })
      expect(typeof record.startedAt).toBe('number')
      expect(await store.get('r:1:c1')).toEqual(record)
      expect(await store.get('missing')).toBeUndefined()
    })
  },

  async 'execution.start.twice'({ create }) {
    const store = await create()
    await store.start(call('r', 1, 'c1', { q: 'first' }))
    const again = await store.start({ ...call('r', 1, 'c1', { q: 'second' }), toolName: 'other' })
    await rule('execution.start.retry', 'start on a key still "started" must return created: false, increment attempt and overwrite nothing else', async () => {
      expect(again.created).toBe(false)
      expect(again.record).toMatchObject({ status: 'started', attempt: 2, args: { q: 'first' }, toolName: 'search' })
      expect((await store.get('r:1:c1'))?.attempt).toBe(2)
    })
  },

  async 'execution.finish'({ create }) {
    const store = await create()
    await store.start(call('r', 1, 'ok'))
    await store.start(call('r', 1, 'bad'))
    await store.start(call('r', 1, 'stop'))
    const succeeded = await store.finish('r:1:ok', { status: 'succeeded', result: { rows: [1, 2], note: null } })
    const failed = await store.finish('r:1:bad', { status: 'failed', error: { code: 'tool', message: 'boom' } })
    const cancelled = await store.finish('r:1:stop', { status: 'cancelled' })
    await rule(
      'execution.finish.terminal',
      'finish must move a "started" record to the given status with result/error and a finishedAt, and return it',
      async () => {
        expect(succeeded).toMatchObject({ status: 'succeeded', result: { rows: [1, 2], note: null }, attempt: 1 })
        expect(typeof succeeded.finishedAt).toBe('number')
        expect(failed).toMatchObject({ status: 'failed', error: { code: 'tool', message: 'boom' } })
        expect(cancelled.status).toBe('cancelled')
        expect(cancelled.result).toBeUndefined()
        expect(await store.get('r:1:ok')).toEqual(succeeded)
      },
    )
    await rule('execution.finish.once', 'finish on a terminal record must leave it unchanged and return it (a late result never overwrites)', async () => {
      expect(await store.finish('r:1:ok', { status: 'failed', error: { code: 'late', message: 'late' } })).toEqual(succeeded)
      expect(await store.finish('r:1:stop', { status: 'succeeded', result: 'late' })).toEqual(cancelled)
      expect(await store.get('r:1:ok')).toEqual(succeeded)
    })
    await rule('execution.start.terminal', 'start on a terminal key must return the record unchanged with created: false (no attempt increment)', async () => {
      const again = await store.start(call('r', 1, 'ok'))
      expect(again.created).toBe(false)
      expect(again.record).toEqual(succeeded)
    })
    await rule('execution.finish.unknown', 'finish on a key never started must throw NotFoundError', () =>
      rejection(() => store.finish('r:9:none', { status: 'succeeded', result: 1 }), { code: 'not_found' }),
    )
  },

  async 'execution.list-by-run'({ create }) {
    const store = await create()
    for (const callId of ['zeta', 'alpha', 'mid']) await store.start(call('r', 1, callId))
    await store.start(call('r', 2, 'aaa'))
    await store.start(call('other', 1, 'x'))
    await store.finish('r:1:alpha', { status: 'succeeded', result: 1 })
    await rule('execution.list-by-run', 'listByRun must return only that run’s records, in start order (not key order)', async () => {
      expect((await store.listByRun('r')).map((r) => r.key)).toEqual(['r:1:zeta', 'r:1:alpha', 'r:1:mid', 'r:2:aaa'])
      expect((await store.listByRun('r'))[1].status).toBe('succeeded')
      expect(await store.listByRun('missing')).toEqual([])
    })
  },

  async 'execution.start.concurrent'({ create }) {
    const store = await create()
    const results = await Promise.all(Array.from({ length: 10 }, () => store.start(call('r', 1, 'race'))))
    await rule(
      'execution.start.concurrent',
      'parallel starts of one key must create it exactly once (INSERT … ON CONFLICT, or a transaction) and count every other call as an attempt',
      async () => {
        expect(results.filter((result) => result.created)).toHaveLength(1)
        expect((await store.get('r:1:race'))?.attempt).toBe(10)
        expect(await store.listByRun('r')).toHaveLength(1)
      },
    )
  },

  async 'execution.start.two-connections'({ create, secondConnection }) {
    const store = await create()
    const other = await secondConnection!(store)
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? store : other).start(call('r', 1, 'race'))))
    await rule(
      'execution.start.two-connections',
      'starts of one key from two connections must create it exactly once; use INSERT … ON CONFLICT (key) in the database, not an in-process check',
      async () => {
        expect(results.filter((result) => result.created)).toHaveLength(1)
        expect((await other.get('r:1:race'))?.attempt).toBe(6)
      },
    )
  },

  async 'execution.isolation'({ create }) {
    const first = await create()
    const second = await create()
    await first.start(call('r', 1, 'c'))
    await rule(
      'execution.isolation',
      'two stores returned by create() must never see each other’s data: keep state per instance, use a fresh database/schema/prefix per instance',
      async () => {
        expect(await second.get('r:1:c')).toBeUndefined()
        expect(await second.listByRun('r')).toEqual([])
        expect((await second.start(call('r', 1, 'c'))).created).toBe(true)
      },
    )
  },

  async 'execution.unicode'({ create }) {
    const store = await create()
    for (const [name, sample] of Object.entries(unicodeSamples)) {
      await rule(`execution.unicode.${name}`, unicodeFix, async () => {
        const args = { text: sample, [`key ${sample}`]: [sample] }
        const started = await unicodeOutcome(
          sample,
          () => store.start(call('r', 1, name, args)),
          async () => (await store.get(`r:1:${name}`))?.args,
          args,
        )
        await store.start(call('r', 2, name))
        const finished = await unicodeOutcome(
          sample,
          () => store.finish(`r:2:${name}`, { status: 'succeeded', result: { text: sample } }),
          async () => (await store.get(`r:2:${name}`))?.result,
          { text: sample },
        )
        expect(finished, 'the same string must get the same outcome in args and in a result').toBe(started)
        await expectExactJson(`execution.unicode.json.${name}`, sample, started)
        await expectExactJson(`execution.unicode.json.${name}`, sample, finished)
      })
    }
  },

  async 'execution.values-copied'({ create }) {
    const store = await create()
    const args = { list: ['a'] }
    const { record } = await store.start(call('r', 1, 'c', args))
    args.list.push('mutated')
    ;(record.args as { list: string[] }).list.push('mutated too')
    await rule('execution.values-copied', 'a store must copy values in and out: callers mutating inputs or results must not change stored data', async () => {
      expect((await store.get('r:1:c'))?.args).toEqual({ list: ['a'] })
    })
  },
  ...executionCopyOutRules,
}
