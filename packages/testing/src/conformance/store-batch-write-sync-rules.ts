// Conformance check of StoreBatch's optional capability `writeSync` (spec v1): a write through it is read back exactly
// as the same write through `write()`, it reports what it wrote (the results `write()` gives, the ones `wanted` asks
// for at least), and declining (undefined) writes nothing. A batch without `writeSync` passes: it offers nothing to check.
import type { BatchedStores, StoreWriteResult } from '@spindle/core'
import { expect } from 'vitest'
import type { ConformanceChecks } from './harness.js'
import { rule } from './rule.js'
import { batchOf, readState, seed, stepWrites, withoutTimes } from './store-batch-samples.js'

const sameAsWriteFix =
  'apply the writes of writeSync() with the very code write() uses (write() can call writeSync() and fall back when it returns undefined), all or nothing, and return each write’s result as write() does'

/** Results read from every write but the first, as the kernel asks when it ignores a step's first append. */
const allButFirst = { slots: [undefined], count: 1, rest: true }

/** The writeSync check of the StoreBatch conformance kit (part of `storeBatchRules`), by name. */
export const storeBatchWriteSyncRules: ConformanceChecks<BatchedStores> = {
  async 'batch.write-sync'({ create }) {
    const viaWrite = await create()
    const viaSync = await create()
    await seed(viaWrite)
    await seed(viaSync)
    const batch = await batchOf(viaSync)
    if (batch.writeSync === undefined) return
    const expected = await (await batchOf(viaWrite)).write(stepWrites())
    const before = await readState(viaSync)
    const results = await rule('batch.write-sync.valid', `writeSync() of valid writes must not throw; ${sameAsWriteFix}`, () => batch.writeSync!(stepWrites()))
    if (results === undefined) {
      await rule('batch.write-sync.declined', 'a writeSync() that returns undefined must have written nothing (the kernel then calls write())', async () => {
        expect(withoutTimes(await readState(viaSync))).toEqual(withoutTimes(before))
      })
      return
    }
    await rule(
      'batch.write-sync.state',
      `writes made through writeSync() must read back as the same writes made through write(); ${sameAsWriteFix}`,
      async () => {
        expect(withoutTimes(await readState(viaSync))).toEqual(withoutTimes(await readState(viaWrite)))
      },
    )
    await rule(
      'batch.write-sync.results',
      `writeSync() must report what it wrote: one result per write, each equal to write()’s; ${sameAsWriteFix}`,
      async () => {
        expect(results).toHaveLength(expected.length)
        expect(withoutTimes(results)).toEqual(withoutTimes(expected))
        expect(await viaSync.runs.getRun('r')).toEqual(results[results.length - 1])
        expect(await viaSync.executions.get('r:2:new')).toEqual(results[5])
      },
    )
    const partial = await create()
    await seed(partial)
    const wanted = await rule(
      'batch.write-sync.wanted',
      `writeSync(writes, wanted) must apply every write and return the results wanted asks for; ${sameAsWriteFix}`,
      async () => {
        const written = (await batchOf(partial)).writeSync!(stepWrites(), allButFirst)
        expect(written, 'writeSync() declined writes it accepted without `wanted`').toBeDefined()
        expect(withoutTimes(await readState(partial))).toEqual(withoutTimes(await readState(viaWrite)))
        return written!
      },
    )
    await rule('batch.write-sync.wanted-results', `the results wanted asks for must equal write()’s; ${sameAsWriteFix}`, () => {
      expect(withoutTimes(wanted.slice(1) satisfies StoreWriteResult[])).toEqual(withoutTimes(expected.slice(1)))
    })
  },
}
