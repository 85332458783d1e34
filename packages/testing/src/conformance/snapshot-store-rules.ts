// Conformance checks of SnapshotStore, spec v1: versions per run, latest, replace, list order, delete.
import type { RunSnapshot, SnapshotStore } from '@spindle/core'
import { expect } from 'vitest'
import { snapshotCopyOutRules } from './copy-out-rules.js'
import type { ConformanceChecks } from './harness.js'
import { rule } from './rule.js'
import { expectExactJson, unicodeFix, unicodeOutcome, unicodeSamples } from './samples.js'

function snapshot(runId: string, version: number, state: RunSnapshot['state'] = { step: version }): RunSnapshot {
  return { runId, sessionId: 's', version, state, createdAt: 1_700_000_000_000 + version }
}

/**
 * The checks of the SnapshotStore conformance kit, by name; `describeSnapshotStore` runs each as a test. A check fails with a
 * `ConformanceError` naming the rule broken and how to fix it. Run one alone to narrow a failure:
 *
 * @example
 * await snapshotStoreRules['snapshot.save-latest']({ create: () => createMyStore() })
 */
export const snapshotStoreRules: ConformanceChecks<SnapshotStore> = {
  async 'snapshot.save-latest'({ create }) {
    const store = await create()
    for (const version of [2, 10, 1]) await store.save(snapshot('r', version, { step: version, cursor: { seq: version * 3 } }))
    await store.save(snapshot('other', 50))
    await rule(
      'snapshot.latest',
      'latest must return the snapshot with the highest version of the run (ORDER BY version DESC, numerically), whatever the save order',
      async () => {
        expect(await store.latest('r')).toEqual(snapshot('r', 10, { step: 10, cursor: { seq: 30 } }))
        expect(await store.latest('missing')).toBeUndefined()
      },
    )
    await rule('snapshot.get', 'get(runId, version) must return that exact snapshot, or undefined', async () => {
      expect(await store.get('r', 2)).toEqual(snapshot('r', 2, { step: 2, cursor: { seq: 6 } }))
      expect(await store.get('r', 3)).toBeUndefined()
      expect(await store.get('other', 2)).toBeUndefined()
    })
    await rule('snapshot.list', 'list must return only that run’s snapshots, oldest (lowest version) first', async () => {
      expect((await store.list('r')).map((s) => s.version)).toEqual([1, 2, 10])
      expect(await store.list('missing')).toEqual([])
    })
  },

  async 'snapshot.replace'({ create }) {
    const store = await create()
    await store.save(snapshot('r', 1, { value: 'first' }))
    await store.save(snapshot('r', 1, { value: 'second' }))
    await rule(
      'snapshot.replace',
      'saving the same (runId, version) twice must replace it (INSERT … ON CONFLICT DO UPDATE), not duplicate or fail',
      async () => {
        expect(await store.list('r')).toEqual([snapshot('r', 1, { value: 'second' })])
        expect((await store.get('r', 1))?.state).toEqual({ value: 'second' })
      },
    )
  },

  async 'snapshot.delete-run'({ create }) {
    const store = await create()
    await store.save(snapshot('r', 1))
    await store.save(snapshot('r', 2))
    await store.save(snapshot('keep', 1))
    await store.deleteRun('r')
    await rule('snapshot.delete-run', 'deleteRun must delete every snapshot of that run and nothing else', async () => {
      expect(await store.list('r')).toEqual([])
      expect(await store.latest('r')).toBeUndefined()
      expect(await store.list('keep')).toHaveLength(1)
    })
  },

  async 'snapshot.isolation'({ create }) {
    const first = await create()
    const second = await create()
    await first.save(snapshot('r', 1))
    await rule(
      'snapshot.isolation',
      'two stores returned by create() must never see each other’s data: keep state per instance, use a fresh database/schema/prefix per instance',
      async () => {
        expect(await second.latest('r')).toBeUndefined()
        expect(await second.list('r')).toEqual([])
      },
    )
  },

  async 'snapshot.unicode'({ create }) {
    const store = await create()
    for (const [index, [name, sample]] of Object.entries(unicodeSamples).entries()) {
      await rule(`snapshot.unicode.${name}`, unicodeFix, async () => {
        const state = { text: sample, [`key ${sample}`]: [sample] }
        const outcome = await unicodeOutcome(
          sample,
          () => store.save(snapshot('r', index + 1, state)),
          async () => (await store.get('r', index + 1))?.state,
          state,
        )
        await expectExactJson(`snapshot.unicode.json.${name}`, sample, outcome)
      })
    }
  },

  async 'snapshot.values-copied'({ create }) {
    const store = await create()
    const saved = snapshot('r', 1, { list: ['a'] })
    await store.save(saved)
    ;(saved.state.list as string[]).push('mutated')
    const read = await store.latest('r')
    ;(read!.state.list as string[]).push('mutated too')
    await rule('snapshot.values-copied', 'a store must copy values in and out: callers mutating inputs or results must not change stored data', async () => {
      expect((await store.latest('r'))?.state).toEqual({ list: ['a'] })
    })
  },
  ...snapshotCopyOutRules,
}
