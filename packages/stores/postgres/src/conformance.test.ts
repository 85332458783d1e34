// The shared store conformance suites from @spindle/testing, against the real PostgreSQL server, one fresh schema per check.
import { describeStores } from '@spindle/testing'
import { postgresStores, type PostgresStores } from './index.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const primaries = new WeakSet<PostgresStores>()

describePostgres('store-postgres', () => {
  describeStores('postgres', {
    async create() {
      const stores = postgresStores({ connectionString: databaseUrl, schema: randomSchemaName() })
      primaries.add(stores)
      await stores.migrate()
      return stores
    },
    async createSecondConnection(stores) {
      // A second pool (separate connections) on the same schema.
      const second = postgresStores({ connectionString: databaseUrl, schema: (stores as PostgresStores).schema })
      await second.migrate()
      return second
    },
    async cleanup(stores) {
      const postgres = stores as PostgresStores
      await postgres.close()
      if (primaries.has(postgres)) await dropSchema(postgres.schema)
    },
  })
})
