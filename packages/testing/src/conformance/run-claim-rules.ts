// Conformance checks of RunStore, spec v1: claimRun, the compare-and-set a worker takes a run with (alone, concurrent,
// and from two connections).
import type { RunStore } from '@spindle/core'
import { expect } from 'vitest'
import type { ConformanceChecks } from './harness.js'
import { rejection, rule } from './rule.js'

/** The claimRun checks of the RunStore conformance kit (part of `runStoreRules`), by name. */
export const runClaimRules: ConformanceChecks<RunStore> = {
  async 'run.claim'({ create }) {
    const store = await create()
    // Optional in the spec: a store without it is claimed with updateRun by the runtime (and not checked here).
    if (store.claimRun === undefined) return
    const dead = { owner: 'dead-process', expiresAt: 1_700_000_000_000 }
    await store.createRun({ id: 'r', sessionId: 's', request: {}, status: 'running', lease: dead, startedAt: 1 })
    await store.createRun({ id: 'q', sessionId: 's', request: {} })
    const mine = { owner: 'process-b', expiresAt: 1_800_000_000_000 }
    await rule(
      'run.claim.stale',
      'claimRun must resolve undefined and write nothing when the stored status or lease differs from the expectation (compare both in the same atomic statement as the write)',
      async () => {
        const before = await store.getRun('r')
        expect(
          await store.claimRun!('r', { status: 'running', lease: { owner: 'dead-process', expiresAt: dead.expiresAt + 1 } }, { lease: mine }),
        ).toBeUndefined()
        expect(await store.claimRun!('r', { status: 'running', lease: { owner: 'other', expiresAt: dead.expiresAt } }, { lease: mine })).toBeUndefined()
        expect(await store.claimRun!('r', { status: 'interrupted', lease: dead }, { lease: mine })).toBeUndefined()
        expect(await store.claimRun!('r', { status: 'running', lease: undefined }, { lease: mine })).toBeUndefined()
        expect(await store.claimRun!('q', { status: 'queued', lease: dead }, { status: 'running', lease: mine })).toBeUndefined()
        expect(await store.getRun('r')).toEqual(before)
      },
    )
    await rule(
      'run.claim.applies',
      'claimRun with the stored status and lease (or lease undefined for none) must apply the patch like updateRun and resolve the stored record',
      async () => {
        const claimed = await store.claimRun!('r', { status: 'running', lease: dead }, { status: 'running', lease: mine, step: 2 })
        expect(claimed).toMatchObject({ id: 'r', status: 'running', lease: mine, step: 2, startedAt: 1 })
        expect(await store.getRun('r')).toEqual(claimed)
        const started = await store.claimRun!('q', { status: 'queued', lease: undefined }, { status: 'running', lease: mine, startedAt: 7 })
        expect(started).toMatchObject({ status: 'running', lease: mine, startedAt: 7 })
        expect(await store.getRun('q')).toEqual(started)
      },
    )
    await rule('run.claim.once', 'a second claim with the expectation the first one met must lose (undefined): the first claim changed the lease', async () => {
      expect(await store.claimRun!('r', { status: 'running', lease: dead }, { lease: { owner: 'process-c', expiresAt: 1 } })).toBeUndefined()
      expect((await store.getRun('r'))?.lease).toEqual(mine)
    })
    await rule(
      'run.claim.unknown',
      'claimRun on an unknown id must throw NotFoundError (not resolve undefined, which means “another writer got there first”)',
      () => rejection(() => store.claimRun!('missing', { status: 'running', lease: undefined }, { status: 'running' }), { code: 'not_found' }),
    )
  },

  async 'run.claim.concurrent'({ create }) {
    const store = await create()
    if (store.claimRun === undefined) return
    const dead = { owner: 'dead-process', expiresAt: 1_700_000_000_000 }
    await store.createRun({ id: 'r', sessionId: 's', request: {}, status: 'running', lease: dead })
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.claimRun!('r', { status: 'running', lease: dead }, { status: 'running', lease: { owner: `process-${i}`, expiresAt: 1_800_000_000_000 + i } }),
      ),
    )
    await rule(
      'run.claim.concurrent',
      'parallel claimRun calls with the same expectation must let exactly one win (a compare-and-set: one conditional UPDATE, or a transaction), the others resolve undefined',
      async () => {
        const winners = outcomes.filter((outcome) => outcome !== undefined)
        expect(winners).toHaveLength(1)
        expect((await store.getRun('r'))?.lease).toEqual(winners[0]!.lease)
      },
    )
  },

  async 'run.claim.two-connections'({ create, secondConnection }) {
    const store = await create()
    if (store.claimRun === undefined) return
    const other = await secondConnection!(store)
    const dead = { owner: 'dead-process', expiresAt: 1_700_000_000_000 }
    await store.createRun({ id: 'r', sessionId: 's', request: {}, status: 'running', lease: dead })
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? store : other).claimRun!(
          'r',
          { status: 'running', lease: dead },
          { status: 'running', lease: { owner: `process-${i}`, expiresAt: 1_800_000_000_000 + i } },
        ),
      ),
    )
    await rule(
      'run.claim.two-connections',
      'claimRun from two connections with the same expectation must let exactly one win: compare and write in the database, atomically',
      async () => {
        const winners = outcomes.filter((outcome) => outcome !== undefined)
        expect(winners).toHaveLength(1)
        expect((await other.getRun('r'))?.lease).toEqual(winners[0]!.lease)
      },
    )
  },
}
