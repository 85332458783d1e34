// Conformance check of RunStore, spec v1: a run's end is stored with the status its finish reason implies.
import { type FinishReason, type RunStatus, type RunStore, runStatusOf } from '@spindle/core'
import { expect } from 'vitest'
import type { ConformanceChecks } from './harness.js'
import { rule } from './rule.js'

/** Each finish reason, the status a patch carrying it must leave (`runStatusOf`), and a status the patch says instead. */
const ends: Array<[FinishReason, RunStatus]> = [
  ['stop', 'completed'],
  ['timeout', 'failed'],
  ['policy', 'failed'],
  ['error', 'failed'],
  ['cancelled', 'cancelled'],
  ['max_steps', 'completed'],
  ['awaiting_approval', 'suspended'],
]

export const runStatusRules: ConformanceChecks<RunStore> = {
  async 'run.status.finish-reason'({ create }) {
    const store = await create()
    const fix =
      'a patch that ends a run (status completed, failed, cancelled or suspended, with a finishReason) must store the status runStatusOf(finishReason) gives (endedRunStatus(patch) from @spindle/core; a timeout is "failed"): apply it in updateRun and claimRun — applyRunPatch does — and in the status column listRuns filters on'
    for (const [index, [finishReason]] of ends.entries()) {
      await store.createRun({ id: `r-${index}`, sessionId: 's', request: {}, status: 'running' })
      // A writer that still says `completed` for every end (as runtimes before this rule did).
      await store.updateRun(`r-${index}`, { status: 'completed', finishReason, lease: undefined })
    }
    await rule('run.status.finish-reason', fix, async () => {
      for (const [index, [finishReason, status]] of ends.entries()) {
        expect({ finishReason, status: (await store.getRun(`r-${index}`))?.status }).toEqual({ finishReason, status })
        expect(runStatusOf(finishReason)).toBe(status)
      }
      const failed = (await store.listRuns({ status: 'failed' })).map((run) => run.finishReason).sort()
      expect(failed).toEqual(['error', 'policy', 'timeout'])
    })
    await store.createRun({ id: 'claimed', sessionId: 's', request: {}, status: 'running' })
    await rule('run.status.claim', fix, async () => {
      if (!store.claimRun) return
      const claimed = await store.claimRun('claimed', { status: 'running', lease: undefined }, { status: 'completed', finishReason: 'timeout' })
      expect(claimed?.status).toBe('failed')
      expect((await store.listRuns({ status: 'failed' })).map((run) => run.id)).toContain('claimed')
    })
  },
}
