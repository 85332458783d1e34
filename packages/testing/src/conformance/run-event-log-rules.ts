// Conformance checks of RunStore, spec v1: the per-run event log (order by seq, replays ignored, any run id).
import type { AgentEvent, RunStore } from '@spindle/core'
import { expect } from 'vitest'
import type { ConformanceChecks } from './harness.js'
import { rule } from './rule.js'

/** A `text.delta` event of `runId` at `seq` (the events the RunStore checks append). */
export function textDelta(runId: string, seq: number, delta: string): AgentEvent {
  return { type: 'text.delta', runId, sessionId: 'session-1', seq, timestamp: 1_700_000_000_000 + seq, step: 1, delta }
}

/** The event log is keyed by run id alone: appending to a run id without a record is allowed (see RunStore.appendEvents). */
export const unknownRunFix =
  'appendEvents must accept events for a run id that has no record (never created, or created elsewhere) and store them like any others: key the event log by run id alone (no foreign key to runs) and do not throw NotFoundError'

/** The event-log checks of the RunStore conformance kit (part of `runStoreRules`), by name. */
export const runEventLogRules: ConformanceChecks<RunStore> = {
  async 'run.events'({ create }) {
    const store = await create()
    await store.createRun({ id: 'r', sessionId: 'session-1', request: {} })
    await store.appendEvents('r', [textDelta('r', 1, 'a'), textDelta('r', 2, 'b'), textDelta('r', 3, 'c')])
    await rule('run.events.unknown-run', unknownRunFix, () => store.appendEvents('other', [textDelta('other', 1, 'x')]))
    const seqs = async (options?: { after?: number; limit?: number }) => (await store.listEvents('r', options)).map((e) => e.seq)
    await rule('run.events.round-trip', 'listEvents must return the appended events unchanged, in seq order', async () => {
      expect(await store.listEvents('r')).toEqual([textDelta('r', 1, 'a'), textDelta('r', 2, 'b'), textDelta('r', 3, 'c')])
    })
    await rule('run.events.after', 'listEvents({ after }) must return only events with seq > after; limit caps the count', async () => {
      expect(await seqs({ after: 1 })).toEqual([2, 3])
      expect(await seqs({ after: 3 })).toEqual([])
      expect(await seqs({ limit: 2 })).toEqual([1, 2])
      expect(await seqs({ after: 1, limit: 1 })).toEqual([2])
    })
    await rule(
      'run.events.idempotent',
      'appendEvents must ignore an event whose (runId, seq) is already stored (INSERT … ON CONFLICT DO NOTHING) and keep the first',
      async () => {
        await store.appendEvents('r', [textDelta('r', 2, 'replayed'), textDelta('r', 5, 'e'), textDelta('r', 4, 'd')])
        expect(await seqs()).toEqual([1, 2, 3, 4, 5])
        expect((await store.listEvents('r', { after: 1, limit: 1 }))[0]).toMatchObject({ delta: 'b' })
      },
    )
    await rule('run.events.per-run', 'event logs are per run: another run’s events must not appear; an unknown run has no events', async () => {
      expect((await store.listEvents('other')).map((e) => e.runId)).toEqual(['other'])
      expect(await store.listEvents('missing')).toEqual([])
    })
  },
}
