// U+0000 in JSON values survives a round trip through jsonb (which refuses it), on the real server.
import pg from 'pg'
import { afterAll, expect, it } from 'vitest'
import { fromJsonb, toJsonbText } from './jsonb-text.js'
import { postgresStores } from './postgres-stores.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const schema = randomSchemaName()
afterAll(() => dropSchema(schema))

describePostgres('jsonb text with U+0000', () => {
  it('round-trips strings and keys holding U+0000, the marker and backslashes; plain values are unchanged', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl })
    try {
      const value = { 'a\u0000b': ['x\u0000y\\0', '\uFDD0starts with the marker', 'plain \\ text', 3, null, { nested: 'c\u0000' }] }
      const { rows } = await pool.query<{ value: unknown }>('SELECT $1::jsonb AS value', [toJsonbText(value)])
      expect(fromJsonb(rows[0]!.value)).toEqual(value)
      expect(toJsonbText({ a: 'plain' })).toBe('{"a":"plain"}')
      await expect(pool.query('SELECT $1::jsonb', [JSON.stringify(value)])).rejects.toThrow(/Unicode escape/)
    } finally {
      await pool.end()
    }
  })

  it('a snapshot whose state holds U+0000 (the doom-loop signature) is saved and read back', async () => {
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    try {
      await stores.migrate()
      const state = { signatures: ['lookup\u0000{"q":1}\u0001'], step: 2 }
      await stores.snapshots.save({ runId: 'r1', sessionId: 's1', version: 1, state, createdAt: 1 })
      expect((await stores.snapshots.latest('r1'))?.state).toEqual(state)
    } finally {
      await stores.close()
    }
  })
})
