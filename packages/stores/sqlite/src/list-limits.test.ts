// Pagination options the memory store takes must work on SQLite too: `limit: Infinity` ("no limit"), fractional
// bounds and counts. A REAL LIMIT used to fail every list method with "datatype mismatch".
import { memoryStores } from '@spindle/core'
import { fillListBounds, listWithUnusualBounds } from '@spindle/testing'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

describe('list limits', () => {
  it('limit: Infinity means no limit and fractional bounds select what they do in the memory store', async () => {
    const memory = memoryStores()
    await fillListBounds(memory)
    const expected = await listWithUnusualBounds(memory)
    expect(expected).toMatchObject({
      entries: [1, 2, 3],
      entriesFractional: [2],
      entriesUnbounded: [3, 2, 1],
      events: [1, 2, 3],
      eventsFractional: [2],
      embeddings: ['a', 'b'],
    })
    const sqlite = openStores({ path: tempDatabasePath() })
    await fillListBounds(sqlite)
    expect(await listWithUnusualBounds(sqlite)).toEqual(expected)
  })
})
