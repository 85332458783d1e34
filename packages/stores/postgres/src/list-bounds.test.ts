// Pagination options the memory store takes must work on PostgreSQL too: `limit: Infinity` ("no limit") and
// fractional bounds (a `before` from `performance.timeOrigin + performance.now()`). Passed to bigint parameters
// as they were, they failed every list method with "invalid input syntax for type bigint".
import { memoryStores } from '@spindle/core'
import { fillListBounds, listWithUnusualBounds } from '@spindle/testing'
import { afterEach, expect, it } from 'vitest'
import { postgresStores, type PostgresStores } from './index.js'
import { afterParameter, beforeParameter, limitParameter } from './list-bounds.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const opened: Array<{ stores: PostgresStores; schema: string }> = []
afterEach(async () => {
  for (const { stores, schema } of opened.splice(0)) {
    await stores.close()
    await dropSchema(schema)
  }
})

it('bounds become the integers that select the same rows, or no bound', () => {
  expect([limitParameter(undefined), limitParameter(Infinity), limitParameter(2.9), limitParameter(-3)]).toEqual([null, null, 2, 0])
  expect([afterParameter(-Infinity), afterParameter(1.5), afterParameter(-1.5), afterParameter(1e300)]).toEqual([null, 1, -2, Number.MAX_SAFE_INTEGER])
  expect([beforeParameter(Infinity), beforeParameter(2.5), beforeParameter(2), beforeParameter(-1e300)]).toEqual([null, 3, 2, -Number.MAX_SAFE_INTEGER])
})

describePostgres('list bounds', () => {
  it('limit: Infinity means no limit and fractional bounds select what they do in the memory store', async () => {
    const memory = memoryStores()
    await fillListBounds(memory)
    const expected = await listWithUnusualBounds(memory)
    expect(expected).toMatchObject({ entries: [1, 2, 3], entriesFractional: [2], entriesUnbounded: [3, 2, 1], eventsFractional: [2], embeddings: ['a', 'b'] })
    const schema = randomSchemaName()
    const stores = postgresStores({ connectionString: databaseUrl, schema, vectorSearch: 'exact' })
    opened.push({ stores, schema })
    await stores.migrate()
    await fillListBounds(stores)
    expect(await listWithUnusualBounds(stores)).toEqual(expected)
  })
})
