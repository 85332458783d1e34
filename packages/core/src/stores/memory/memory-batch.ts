// The memory stores' StoreBatch: applies each write in order through the stores' own logic and undoes the
// applied ones when a later write fails, so a batch is all or nothing like a database transaction.
import type { BatchedStores, StoreBatch, StoreWrite, StoreWriteResult } from '../../spec/store-batch.js'
import { applyStoreWrite } from '../../runtime/step-writer.js'
import { applyWrite, type BatchableMemoryStore } from './memory-write.js'
import { MemoryExecutionStore } from './memory-execution-store.js'
import { MemoryRunStore } from './memory-run-store.js'
import { MemorySessionStore } from './memory-session-store.js'
import { MemorySnapshotStore } from './memory-snapshot-store.js'

const methodOf: Record<StoreWrite['type'], [string, unknown]> = {
  'session.append': ['append', MemorySessionStore.prototype.append],
  'execution.start': ['start', MemoryExecutionStore.prototype.start],
  'execution.finish': ['finish', MemoryExecutionStore.prototype.finish],
  'run.events': ['appendEvents', MemoryRunStore.prototype.appendEvents],
  'run.update': ['updateRun', MemoryRunStore.prototype.updateRun],
  'snapshot.save': ['save', MemorySnapshotStore.prototype.save],
}


const storeOf: Record<StoreWrite['type'], keyof BatchedStores> = {
  'session.append': 'sessions',
  'execution.start': 'executions',
  'execution.finish': 'executions',
  'run.events': 'runs',
  'run.update': 'runs',
  'snapshot.save': 'snapshots',
}

export class MemoryStoreBatch implements StoreBatch {
  readonly specificationVersion = 'v1' as const
  readonly stores: BatchedStores

  constructor(stores: BatchedStores) {
    this.stores = stores
  }

  async write(writes: readonly StoreWrite[]): Promise<StoreWriteResult[]> {
    const results: StoreWriteResult[] = []
    const undos: Array<() => void> = []
    try {
      for (const write of writes) {
        const store = this.stores[storeOf[write.type]] as unknown as BatchableMemoryStore & Record<string, unknown>
        const [method, original] = methodOf[write.type]
        if (store[method] !== original) {
          // A method replaced on the instance (a test double, a wrapper) is honoured: the write goes through it.
          results.push(await applyStoreWrite(this.stores, write))
          undos.push(() => {})
          continue
        }
        const applied = store[applyWrite](write)
        results.push(applied.result)
        undos.push(applied.undo)
      }
    } catch (error) {
      for (let index = undos.length - 1; index >= 0; index--) undos[index]!()
      throw error
    }
    return results
  }
}
