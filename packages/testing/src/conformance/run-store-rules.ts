// Conformance checks of RunStore, spec v1: run records, idempotency keys, listing, and the per-run event log.
import type { AgentEvent, RunStore } from '@spindle/core'
import { expect } from 'vitest'
import { runCopyOutRules } from './copy-out-rules.js'
import { runClaimRules } from './run-claim-rules.js'
import { runEventLogRules, textDelta, unknownRunFix } from './run-event-log-rules.js'
import type { ConformanceChecks } from './harness.js'
import { rejection, rule } from './rule.js'
import { runStatusRules } from './run-status-rules.js'
import { expectExactJson, tick, unicodeFix, unicodeOutcome, unicodeSamples } from './samples.js'

/**
 * The checks of the RunStore conformance kit, by name; `describeRunStore` runs each as a test. A check fails with a
 * `ConformanceError` naming the rule broken and how to fix it. Run one alone to narrow a failure:
 *
 * @example
 * await runStoreRules['run.create-get']({ create: () => createMyStore() })
 */
export const runStoreRules: ConformanceChecks<RunStore> = {
  async 'run.create-get'({ create }) {
    const store = await create()
    const created = await store.createRun({ id: 'r-1', sessionId: 's', request: { input: 'hi', nested: [1, { a: null }] } })
    await rule(
      'run.create.defaults',
      'createRun must fill defaults: status "queued", step 0, usage { inputTokens: 0, outputTokens: 0 }, metadata {}, numeric createdAt/updatedAt',
      () => {
        expect(created).toMatchObject({ id: 'r-1', sessionId: 's', status: 'queued', step: 0, usage: { inputTokens: 0, outputTokens: 0 }, metadata: {} })
        expect(created.request).toEqual({ input: 'hi', nested: [1, { a: null }] })
        expect(typeof created.createdAt).toBe('number')
      },
    )
    const explicit = await store.createRun({ id: 'r-2', sessionId: 's', request: {}, status: 'running', idempotencyKey: 'k', metadata: { m: true } })
    await rule('run.create.explicit', 'createRun must keep the given status, idempotencyKey and metadata', async () => {
      expect(explicit).toMatchObject({ status: 'running', idempotencyKey: 'k', metadata: { m: true } })
      expect(await store.getRun('r-2')).toEqual(explicit)
      expect(await store.getRun('r-1')).toEqual(created)
    })
    const lease = { owner: 'runtime-1', expiresAt: 1_700_000_030_000 }
    const started = await store.createRun({ id: 'r-started', sessionId: 's', request: {}, status: 'running', startedAt: 1_700_000_000_000, lease })
    await rule(
      'run.create.started',
      'createRun must keep the given startedAt and lease (a run that starts at once is created with them, in one write)',
      async () => {
        expect(started).toMatchObject({ status: 'running', startedAt: 1_700_000_000_000, lease })
        expect(await store.getRun('r-started')).toEqual(started)
        expect(created.startedAt).toBeUndefined()
        expect(created.lease).toBeUndefined()
      },
    )
    await rule('run.get.unknown', 'getRun must resolve undefined for an unknown id', async () => {
      expect(await store.getRun('missing')).toBeUndefined()
    })
  },

  async 'run.create.duplicate'({ create }) {
    const store = await create()
    await store.createRun({ id: 'r-1', sessionId: 's', request: {}, idempotencyKey: 'key' })
    await rule('run.create.duplicate-id', 'createRun with an existing id must throw DuplicateError', () =>
      rejection(() => store.createRun({ id: 'r-1', sessionId: 's', request: {} }), { code: 'duplicate' }),
    )
    await rule(
      'run.create.duplicate-idempotency-key',
      'createRun must throw DuplicateError when (sessionId, idempotencyKey) is taken (a UNIQUE index on both) and write nothing',
      async () => {
        await rejection(() => store.createRun({ id: 'r-2', sessionId: 's', request: {}, idempotencyKey: 'key' }), { code: 'duplicate' })
        expect(await store.getRun('r-2')).toBeUndefined()
      },
    )
    await rule(
      'run.idempotency-key.per-session',
      'idempotency keys are unique per session only: the same key on another session must be accepted',
      async () => {
        await store.createRun({ id: 'r-3', sessionId: 'other', request: {}, idempotencyKey: 'key' })
      },
    )
  },

  async 'run.create.concurrent'({ create }) {
    const store = await create()
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => store.createRun({ id: `r-${i}`, sessionId: 's', request: { i }, idempotencyKey: 'same' })),
    )
    await rule(
      'run.create.concurrent-idempotency-key',
      'parallel createRun calls with one (sessionId, idempotencyKey) must create exactly one run (a UNIQUE index, not a read-then-insert) and reject the others with DuplicateError',
      async () => {
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
        for (const outcome of outcomes) if (outcome.status === 'rejected') await rejection(() => Promise.reject(outcome.reason), { code: 'duplicate' })
        expect(await store.listRuns({ sessionId: 's' })).toHaveLength(1)
      },
    )
  },

  async 'run.create.two-connections'({ create, secondConnection }) {
    const store = await create()
    const other = await secondConnection!(store)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? store : other).createRun({ id: `r-${i}`, sessionId: 's', request: {}, idempotencyKey: 'same' })),
    )
    await rule(
      'run.create.two-connections',
      'createRun from two connections with one (sessionId, idempotencyKey) must create exactly one run; enforce it with a UNIQUE index in the database',
      async () => {
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
        const winner = (await other.findRunByIdempotencyKey('s', 'same'))?.id
        expect(winner).toBeDefined()
        expect((await store.findRunByIdempotencyKey('s', 'same'))?.id).toBe(winner)
      },
    )
  },

  async 'run.idempotency-key.find'({ create }) {
    const store = await create()
    const run = await store.createRun({ id: 'r-1', sessionId: 's', request: {}, idempotencyKey: 'key' })
    await rule(
      'run.idempotency-key.find',
      'findRunByIdempotencyKey(sessionId, key) must return the run with that key on that session, else undefined',
      async () => {
        expect(await store.findRunByIdempotencyKey('s', 'key')).toEqual(run)
        expect(await store.findRunByIdempotencyKey('other', 'key')).toBeUndefined()
        expect(await store.findRunByIdempotencyKey('s', 'nope')).toBeUndefined()
      },
    )
  },

  async 'run.idempotency-key.release'({ create }) {
    const store = await create()
    await store.createRun({ id: 'r-old', sessionId: 's', request: {}, idempotencyKey: 'key' })
    const released = await store.updateRun('r-old', { idempotencyKey: undefined })
    await rule(
      'run.idempotency-key.release',
      'updateRun with { idempotencyKey: undefined } must release the key (an expired one): the record loses it, findRunByIdempotencyKey no longer finds it, and a new run of the session can take it (clear the column of the UNIQUE index too)',
      async () => {
        expect(released.idempotencyKey).toBeUndefined()
        expect((await store.getRun('r-old'))?.idempotencyKey).toBeUndefined()
        expect(await store.findRunByIdempotencyKey('s', 'key')).toBeUndefined()
        const next = await store.createRun({ id: 'r-new', sessionId: 's', request: {}, idempotencyKey: 'key' })
        expect(next.idempotencyKey).toBe('key')
        expect((await store.findRunByIdempotencyKey('s', 'key'))?.id).toBe('r-new')
      },
    )
    await rule(
      'run.idempotency-key.release-other',
      'releasing the key of a run that no longer holds it must leave the run now holding it untouched',
      async () => {
        await store.updateRun('r-old', { idempotencyKey: undefined, step: 1 })
        expect((await store.findRunByIdempotencyKey('s', 'key'))?.id).toBe('r-new')
        await rejection(() => store.createRun({ id: 'r-third', sessionId: 's', request: {}, idempotencyKey: 'key' }), { code: 'duplicate' })
      },
    )
  },

  async 'run.update'({ create }) {
    const store = await create()
    const created = await store.createRun({ id: 'r', sessionId: 's', request: { keep: 1 } })
    await tick()
    const lease = { owner: 'worker-1', expiresAt: 1_800_000_000_000 }
    const updated = await store.updateRun('r', { status: 'running', step: 2, usage: { inputTokens: 10, outputTokens: 5 }, lease, startedAt: 123 })
    await rule('run.update.applies', 'updateRun must apply the patch, keep other fields, bump updatedAt, and return the stored record', async () => {
      expect(updated).toMatchObject({ status: 'running', step: 2, usage: { inputTokens: 10, outputTokens: 5 }, lease, startedAt: 123, request: { keep: 1 } })
      expect(updated.updatedAt).toBeGreaterThanOrEqual(created.updatedAt)
      expect(await store.getRun('r')).toEqual(updated)
    })
    await rule('run.update.absent-keys', 'a key absent from the patch must leave the field unchanged', async () => {
      const next = await store.updateRun('r', { step: 3 })
      expect(next.lease).toEqual(lease)
      expect(next.status).toBe('running')
    })
    await rule('run.update.clear', 'a key present with the value undefined (e.g. { lease: undefined }) must clear the field; test `key in patch`', async () => {
      const next = await store.updateRun('r', { lease: undefined, status: 'completed', finishReason: 'stop', error: { code: 'x', message: 'y' } })
      expect(next.lease).toBeUndefined()
      expect((await store.getRun('r'))?.lease).toBeUndefined()
      expect(next).toMatchObject({ status: 'completed', finishReason: 'stop', error: { code: 'x', message: 'y' }, step: 3 })
    })
    await rule('run.update.unknown', 'updateRun on an unknown id must throw NotFoundError', () =>
      rejection(() => store.updateRun('missing', { step: 1 }), { code: 'not_found' }),
    )
  },

  async 'run.update.required-undefined'({ create }) {
    const store = await create()
    await store.createRun({ id: 'r', sessionId: 's', request: {}, metadata: { keep: true } })
    await store.updateRun('r', { status: 'running', step: 4, usage: { inputTokens: 3, outputTokens: 2 }, finishReason: 'stop', startedAt: 5 })
    const updated = await store.updateRun('r', {
      status: undefined,
      step: undefined,
      usage: undefined,
      metadata: undefined,
      finishReason: undefined,
      startedAt: undefined,
    })
    await rule(
      'run.update.required-undefined',
      'a patch key present with `undefined` must leave a required field (status, step, usage, metadata) unchanged — skip it, do not delete or reset it — and clear an optional one (finishReason, startedAt, lease…)',
      async () => {
        for (const record of [updated, await store.getRun('r')]) {
          expect(record).toMatchObject({ status: 'running', step: 4, usage: { inputTokens: 3, outputTokens: 2 }, metadata: { keep: true } })
          expect(record?.finishReason).toBeUndefined()
          expect(record?.startedAt).toBeUndefined()
        }
      },
    )
  },

  ...runClaimRules,
  async 'run.list.nan-bounds'({ create }) {
    const store = await create()
    await store.createRun({ id: 'r', sessionId: 's', request: {} })
    await store.appendEvents('r', [textDelta('r', 1, 'a')])
    await rule(
      'run.list.nan-bounds',
      'NaN as limit / before (listRuns) or after / limit (listEvents) must be rejected with ConfigurationError naming the option (check Number.isNaN before building the query)',
      async () => {
        const calls: Array<[string, () => Promise<unknown>]> = [
          ['limit', () => store.listRuns({ limit: Number.NaN })],
          ['before', () => store.listRuns({ before: Number.NaN })],
          ['after', () => store.listEvents('r', { after: Number.NaN })],
          ['limit', () => store.listEvents('r', { limit: Number.NaN })],
        ]
        for (const [option, call] of calls) {
          const error = await rejection(call, { code: 'configuration' })
          expect((error as Error).message).toContain(`"${option}"`)
        }
      },
    )
  },

  async 'run.list.newest-first'({ create }) {
    const store = await create()
    const plan = [
      { id: 'r-a', sessionId: 's-1', status: 'completed' },
      { id: 'r-b', sessionId: 's-2', status: 'running' },
      { id: 'r-c', sessionId: 's-1', status: 'failed' },
      { id: 'r-d', sessionId: 's-1', status: 'running' },
    ] as const
    for (const run of plan) {
      await store.createRun({ ...run, request: {} })
      await tick()
    }
    const ids = async (options?: Parameters<RunStore['listRuns']>[0]) => (await store.listRuns(options)).map((r) => r.id)
    await rule(
      'run.list.order',
      'listRuns must return newest first (ORDER BY createdAt DESC, id DESC: equal times by id, highest first, in code-unit order)',
      async () => {
        expect(await ids()).toEqual(['r-d', 'r-c', 'r-b', 'r-a'])
      },
    )
    await rule('run.list.filters', 'listRuns must filter by sessionId and by status (one status or any of an array)', async () => {
      expect(await ids({ sessionId: 's-1' })).toEqual(['r-d', 'r-c', 'r-a'])
      expect(await ids({ status: 'running' })).toEqual(['r-d', 'r-b'])
      expect(await ids({ status: ['completed', 'failed'] })).toEqual(['r-c', 'r-a'])
      expect(await ids({ sessionId: 's-1', status: 'running' })).toEqual(['r-d'])
    })
    await rule('run.list.pagination', 'listRuns must honour limit and return only runs created strictly before `before`', async () => {
      const page = await store.listRuns({ limit: 3 })
      expect(page.map((r) => r.id)).toEqual(['r-d', 'r-c', 'r-b'])
      expect(await ids({ before: page[2].createdAt })).toEqual(['r-a'])
    })
  },

  ...runEventLogRules,
  async 'run.isolation'({ create }) {
    const first = await create()
    const second = await create()
    await first.createRun({ id: 'r', sessionId: 's', request: {}, idempotencyKey: 'k' })
    await first.appendEvents('r', [textDelta('r', 1, 'a')])
    await rule(
      'run.isolation',
      'two stores returned by create() must never see each other’s data: keep state per instance (no module-level maps), use a fresh database/schema/prefix per instance',
      async () => {
        expect(await second.getRun('r')).toBeUndefined()
        expect(await second.listRuns()).toEqual([])
        expect(await second.findRunByIdempotencyKey('s', 'k')).toBeUndefined()
        expect(await second.listEvents('r')).toEqual([])
        await second.createRun({ id: 'r', sessionId: 's', request: {}, idempotencyKey: 'k' })
      },
    )
  },

  async 'run.unicode'({ create }) {
    const store = await create()
    for (const [name, sample] of Object.entries(unicodeSamples)) {
      await rule(`run.unicode.${name}`, unicodeFix, async () => {
        const request = { input: sample, [`key ${sample}`]: [sample] }
        const runOutcome = await unicodeOutcome(
          sample,
          async () => {
            if ((await store.getRun(`run-${name}`)) === undefined) await store.createRun({ id: `run-${name}`, sessionId: 's', request })
          },
          async () => (await store.getRun(`run-${name}`))?.request,
          request,
        )
        await store.createRun({ id: `events-${name}`, sessionId: 's', request: {} })
        const eventOutcome = await unicodeOutcome(
          sample,
          () => store.appendEvents(`events-${name}`, [textDelta(`events-${name}`, 1, sample)]),
          async () => (await store.listEvents(`events-${name}`))[0],
          textDelta(`events-${name}`, 1, sample),
        )
        expect(eventOutcome, 'the same string must get the same outcome in a run request and in an event').toBe(runOutcome)
        const patch = { metadata: { [`key ${sample}`]: sample }, error: { code: 'tool', message: sample } }
        const patchOutcome = await unicodeOutcome(
          sample,
          () => store.updateRun(`events-${name}`, patch),
          async () => {
            const run = await store.getRun(`events-${name}`)
            return { metadata: run?.metadata, error: run?.error }
          },
          patch,
        )
        await expectExactJson(`run.unicode.json.${name}`, sample, runOutcome)
        await expectExactJson(`run.unicode.json.${name}`, sample, eventOutcome)
        await expectExactJson(`run.unicode.json.${name}`, sample, patchOutcome)
      })
    }
  },

  async 'run.events-copied'({ create }) {
    const store = await create()
    const base = { runId: 'r', sessionId: 'session-1', timestamp: 1_700_000_000_000, step: 1, callId: 'c', toolName: 't' }
    const usage = () => ({ inputTokens: 1, outputTokens: 2, totalTokens: 3 })
    const events = (): AgentEvent[] =>
      [
        { ...base, seq: 1, type: 'run.started', agent: 'a', modelId: 'm', input: [{ role: 'user', content: 'hi' }] },
        { ...base, seq: 2, type: 'tool.call', args: { q: { deep: ['x'] } } },
        { ...base, seq: 3, type: 'tool.result', result: { rows: [{ id: 1 }] }, durationMs: 1 },
        { ...base, seq: 4, type: 'tool.error', error: { code: 'e', message: 'failed' }, durationMs: 1 },
        { ...base, seq: 5, type: 'approval.requested', args: { path: ['a'] } },
        { ...base, seq: 6, type: 'step.finished', usage: usage(), finishReason: 'tool-calls', durationMs: 1 },
        { ...base, seq: 7, type: 'run.finished', finishReason: 'stop', text: 'done', usage: usage(), steps: 1 },
        { ...base, seq: 8, type: 'run.failed', finishReason: 'error', error: { code: 'e', message: 'failed' }, usage: usage(), steps: 1 },
      ] as AgentEvent[]
    const appended = events()
    // No createRun: the log of a run id without a record must take events too.
    await rule('run.events.unknown-run', unknownRunFix, () => store.appendEvents('r', appended))
    // The appended events, and every object inside them, are changed afterwards, as a subscriber holding them could.
    const mutate = (value: unknown): void => {
      if (Array.isArray(value)) {
        for (const item of value) mutate(item)
        value.push('mutated')
      } else if (value !== null && typeof value === 'object') {
        for (const item of Object.values(value)) mutate(item)
        ;(value as Record<string, unknown>).mutated = true
      }
    }
    mutate(appended)
    const listed = await store.listEvents('r')
    await rule(
      'run.events-copied',
      'appendEvents must copy events at every depth (args, results, errors, usage, input): changing what was appended must not change the log, nor changing what listEvents returned',
      async () => {
        expect(listed).toEqual(events())
        mutate(listed)
        expect(await store.listEvents('r')).toEqual(events())
      },
    )
  },

  async 'run.values-copied'({ create }) {
    const store = await create()
    const request = { input: { text: 'original' } }
    const created = await store.createRun({ id: 'r', sessionId: 's', request })
    request.input.text = 'mutated'
    ;(created.request as { input: { text: string } }).input.text = 'mutated too'
    await rule('run.values-copied', 'a store must copy values in and out: callers mutating inputs or results must not change stored data', async () => {
      expect((await store.getRun('r'))?.request).toEqual({ input: { text: 'original' } })
    })
  },

  ...runStatusRules,
  ...runCopyOutRules,
}
