// The memory stores' StoreBatch: applies each write in order through the stores' own logic and undoes the
// applied ones when a later write fails, so a batch is all or nothing like a database transaction.
import type { BatchedStores, StoreBatch, StoreWrite, StoreWriteResult } from '../../spec/store-batch.js'

/** Applies one write to a memory store; returns its result and how to take it back. */
export const applyWrite = Symbol('spindle.memory.applyWrite')

export interface AppliedWrite {
  result: StoreWriteResult
  undo(): void
}

export interface BatchableMemoryStore {
  [applyWrite](write: StoreWrite): AppliedWrite
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
    return this.writeNow(writes)
  }

  /** The same, synchronously (the memory stores never wait). */
  writeNow(writes: readonly StoreWrite[]): StoreWriteResult[] {
    const results: StoreWriteResult[] = []
    const undos: Array<() => void> = []
    try {
      for (const write of writes) {
        const applied = (this.stores[storeOf[write.type]] as unknown as BatchableMemoryStore)[applyWrite](write)
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
