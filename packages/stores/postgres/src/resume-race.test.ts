// Two processes (two AgentRuntimes, each with its own pool on one schema and its own in-process gate) resuming the
// same crashed run at once: claimRun (one conditional UPDATE … RETURNING) lets exactly one continue it.
import { describeResumeRace } from '@spindle/testing'
import { afterEach } from 'vitest'
import { postgresStores, type PostgresStores } from './index.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const opened: PostgresStores[] = []
const schemas: string[] = []
afterEach(async () => {
  for (const stores of opened.splice(0)) await stores.close().catch(() => {})
  for (const schema of schemas.splice(0)) await dropSchema(schema)
})

describePostgres('postgres resume race', () => {
  describeResumeRace('postgres, one schema, two pools', () => {
    const schema = randomSchemaName()
    schemas.push(schema)
    return {
      async connect() {
        const stores = postgresStores({ connectionString: databaseUrl, schema, vectorSearch: 'exact' })
        opened.push(stores)
        await stores.migrate()
        return stores
      },
    }
  })
})
