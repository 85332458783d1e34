// The resume race on the memory stores: two AgentRuntimes (their own in-process gates and owner ids) sharing one
// set of stores, as two processes share a database; the compare-and-set claim lets exactly one continue the run.
import { memoryStores } from '@spindle/core'
import { describeResumeRace } from './describe-resume-race.js'

describeResumeRace('memory stores', () => {
  const stores = memoryStores()
  return { connect: () => stores }
})
