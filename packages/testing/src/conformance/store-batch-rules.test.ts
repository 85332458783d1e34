// The StoreBatch checks name the broken rule: proven against deliberately broken batches over the memory stores.
import { ConformanceError, memoryStores, StoreError, type BatchedStores, type StoreBatch, type StoreWriteResult, type Stores } from '@spindle/core'
import { applyStoreWrite } from '@spindle/core/plugin-kit'
import { describe, expect, it } from 'vitest'
import { runCheck } from './harness.js'
import { ruleOf } from './rule.js'
import { storeBatchRules } from './store-batch-rules.js'

interface Flaws {
  /** Applies each write through its single method and keeps what was applied when a later write fails. */
  noRollback?: boolean
  /** Applies the writes last to first (and returns the results in the right order). */
  reversed?: boolean
  /** Rejects with a generic StoreError instead of the failing write's own error. */
  genericError?: boolean
  /** Drops `expectedLastSeq` from appends. */
  noExpectedLastSeq?: boolean
  /** Lists wrappers of the stores in `stores` instead of the instances. */
  wrappedStores?: boolean
  /** Offers a writeSync that writes (through the real one) but reports no results. */
  writeSyncWithoutResults?: boolean
}

/** Memory stores whose batch is replaced by a flawed one (the real memory batch does the work where it is not flawed). */
function flawedStores(flaws: Flaws): Stores {
  const stores = memoryStores()
  const real = stores.sessions.batch!
  const listed: BatchedStores = flaws.wrappedStores
    ? { sessions: new Proxy(stores.sessions, {}), runs: stores.runs, executions: stores.executions, snapshots: stores.snapshots }
    : stores
  const batch: StoreBatch = {
    specificationVersion: 'v1',
    stores: listed,
    async write(writes) {
      if (flaws.noRollback) {
        const results: StoreWriteResult[] = []
        for (const write of writes) results.push(await applyStoreWrite(stores, write))
        return results
      }
      if (flaws.reversed) {
        const results: StoreWriteResult[] = []
        for (const write of [...writes].reverse()) results.unshift((await real.write([write]))[0])
        return results
      }
      if (flaws.noExpectedLastSeq) writes = writes.map((write) => (write.type === 'session.append' ? { ...write, expectedLastSeq: undefined } : write))
      try {
        return await real.write(writes)
      } catch (error) {
        if (flaws.genericError) throw new StoreError('batch failed', { cause: error })
        throw error
      }
    },
  }
  if (flaws.writeSyncWithoutResults) batch.writeSync = (writes) => real.writeSync!(writes)?.map(() => undefined)
  for (const store of [stores.sessions, stores.runs, stores.executions, stores.snapshots]) (store as { batch?: StoreBatch }).batch = batch
  return stores
}

async function brokenRule(id: string, flaws: Flaws): Promise<ConformanceError> {
  const error = await runCheck(storeBatchRules[id]!, { create: () => flawedStores(flaws) }, (stores: BatchedStores) => stores).then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (error === undefined) throw new Error(`${id} passed against a broken batch`)
  expect(error).toBeInstanceOf(ConformanceError)
  return error as ConformanceError
}

describe('StoreBatch conformance checks against broken batches', () => {
  it('a batch without rollback breaks batch.atomic (the earlier writes stay)', async () => {
    const error = await brokenRule('batch.atomic', { noRollback: true })
    expect(ruleOf(error)).toBe('batch.atomic.stale-fence')
    expect(error.message).toMatch(/How to fix: .*one transaction/)
    expect(error.message).toMatch(/state after the failed batch/)
  })

  it('a batch that rejects with its own error instead of the write’s breaks batch.atomic', async () => {
    const error = await brokenRule('batch.atomic', { genericError: true })
    expect(ruleOf(error)).toBe('batch.atomic.stale-fence')
    expect(error.message).toMatch(/stale_fence/)
  })

  it('a batch ignoring expectedLastSeq breaks batch.atomic.sequence-conflict', async () => {
    const error = await brokenRule('batch.atomic', { noExpectedLastSeq: true })
    expect(ruleOf(error)).toBe('batch.atomic.sequence-conflict')
    expect(error.message).toMatch(/expected a SpindleError with code "sequence_conflict", but the call resolved/)
  })

  it('a batch applying writes out of order breaks batch.write.valid (finish before start)', async () => {
    const error = await brokenRule('batch.results', { reversed: true })
    expect(ruleOf(error)).toBe('batch.write.valid')
    expect((error.cause as Error).name).toBe('NotFoundError')
  })

  it('a batch listing wrappers instead of the store instances breaks batch.stores', async () => {
    const error = await brokenRule('batch.discovery', { wrappedStores: true })
    expect(ruleOf(error)).toBe('batch.stores')
  })

  it('a writeSync that writes but reports no results breaks batch.write-sync.results', async () => {
    const error = await brokenRule('batch.write-sync', { writeSyncWithoutResults: true })
    expect(ruleOf(error)).toBe('batch.write-sync.results')
    expect(error.message).toMatch(/report what it wrote/)
  })

  it('stores without a batch break batch.present', async () => {
    const withoutBatch = () => {
      const stores = memoryStores()
      ;(stores.sessions as { batch?: StoreBatch }).batch = undefined
      return stores
    }
    const error = await runCheck(storeBatchRules['batch.empty']!, { create: withoutBatch }, (stores: BatchedStores) => stores).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(ruleOf(error)).toBe('batch.present')
  })

  it('every check passes against the memory stores’ own batch', async () => {
    for (const check of Object.values(storeBatchRules)) {
      await runCheck(check, { create: () => memoryStores(), createSecondConnection: async (stores) => stores }, (stores: BatchedStores) => stores)
    }
  })
})
