// One StoreWrite applied through the single-store method it stands for (no batch).
import type { BatchedStores, StoreWrite, StoreWriteResult } from '../spec/store-batch.js'

/**
 * One write through the single-store method it stands for: what a run does without a batch, and what a batch's
 * results must equal.
 *
 * @example
 * const [entry] = (await applyStoreWrite(stores, { type: 'session.append', sessionId, entries })) as SessionEntry[]
 */
export function applyStoreWrite(stores: BatchedStores, write: StoreWrite): Promise<StoreWriteResult> {
  switch (write.type) {
    case 'session.append':
      return stores.sessions.append(write.sessionId, write.entries, write.fence === undefined ? {} : { fence: write.fence })
    case 'execution.start':
      return stores.executions.start(write.execution)
    case 'execution.finish':
      return stores.executions.finish(write.key, write.outcome)
    case 'run.events':
      return stores.runs.appendEvents(write.runId, write.events) as Promise<undefined>
    case 'run.update':
      return stores.runs.updateRun(write.runId, write.patch)
    case 'snapshot.save':
      return stores.snapshots.save(write.snapshot) as Promise<undefined>
  }
}
