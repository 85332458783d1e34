// The in-memory stores of @spindle/core pass every store conformance suite (and prove the suites run green).
import { memoryStores } from '@spindle/core'
import { describeStoreBatch, describeStores } from '../index.js'

describeStores('memory', {
  create: () => memoryStores(),
  // Memory stores have no connections; the same instance stands in for a second one, so the
  // interleaved-append check still runs (and must pass) against a correct store.
  createSecondConnection: async (stores) => stores,
})

describeStoreBatch('memory', {
  create: () => memoryStores(),
  createSecondConnection: async (stores) => stores,
})
