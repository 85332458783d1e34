// The in-memory stores of @spindle/core pass every store conformance suite (and prove the suites run green).
import { memoryStores } from '@spindle/core'
import { describeStores } from '../index.js'

describeStores('memory', { create: () => memoryStores() })
