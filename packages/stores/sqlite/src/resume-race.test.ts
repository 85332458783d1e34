// Two processes (two AgentRuntimes, each with its own connection to one database file and its own in-process
// gate) resuming the same crashed run at once: claimRun (one conditional UPDATE) lets exactly one continue it.
import { describeResumeRace } from '@spindle/testing'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

describeResumeRace('sqlite, one file, two connections', () => {
  const path = tempDatabasePath()
  return { connect: () => openStores({ path }) }
})
