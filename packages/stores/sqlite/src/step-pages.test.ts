// WAL pages written by a real durable run on SQLite: a regression guard on the layout (a step cost 23-24 pages on
// the version-1 layout, about 16.7 on version 2, 13.8 on version 3; a commit's cost is mostly its 4 KiB pages).
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'
import { pagesPerStep, resetWal, walFrames } from './__fixtures__/step-workload.js'

describe('pages written per durable step', () => {
  it('an AgentRuntime tool step (two commits) writes at most 15 WAL pages', async () => {
    const stores = openStores({ path: tempDatabasePath() })
    const pages = await pagesPerStep(stores)
    expect(pages).toBeGreaterThan(5) // the measurement counts something
    expect(pages).toBeLessThanOrEqual(15)
  })

  it('appending one message usually writes two pages: its log row and its key index leaf (not the session row)', async () => {
    const stores = openStores({ path: tempDatabasePath() })
    await stores.sessions.createSession({ id: 's' })
    const frames: number[] = []
    for (let index = 0; index < 15; index++) {
      resetWal(stores)
      await stores.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: `message ${index}` } }])
      frames.push(walFrames(stores))
    }
    frames.sort((a, b) => a - b)
    // A leaf that fills up splits now and then (a few more pages); the median append touches two b-trees (no
    // kind index: it holds compactions only; no session row: lastSeq is read from the log).
    expect(frames[7]).toBe(2)
  })
})
