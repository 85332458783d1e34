// The shared store conformance suites from @spindle/testing, against the real PostgreSQL server, one fresh schema per check.
import { describeStoreBatch, describeStores, type StoreSuiteOptions } from '@spindle/testing'
import { postgresStores, type PostgresStores } from './index.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const primaries = new WeakSet<PostgresStores>()

/** Fresh stores in a new schema per `create`; a second pool on the same schema for the two-connection checks. */
function postgresSuite<S>(): StoreSuiteOptions<S> {
  return {
    async create() {
      const stores = postgresStores({ connectionString: databaseUrl, schema: randomSchemaName() })
      primaries.add(stores)
      await stores.migrate()
      return stores as S
    },
    async createSecondConnection(stores) {
      // A second pool (separate connections) on the same schema.
      const second = postgresStores({ connectionString: databaseUrl, schema: (stores as PostgresStores).schema })
      await second.migrate()
      return second as S
    },
    async cleanup(stores) {
      const postgres = stores as PostgresStores
      await postgres.close()
      if (primaries.has(postgres)) await dropSchema(postgres.schema)
    },
  }
}

describePostgres('store-postgres', () => {
  describeStores('postgres', postgresSuite<PostgresStores>())
  describeStoreBatch('postgres', postgresSuite())
})
