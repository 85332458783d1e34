// Test plumbing: the DATABASE_URL to use, whether it is reachable (skip locally, fail under CI), fresh schemas.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { describe } from 'vitest'

export const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const inCi = process.env.CI === 'true' || process.env.CI === '1'

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT 1')
    return undefined
  } catch (error) {
    return (error as Error).message || String(error)
  } finally {
    await client.end().catch(() => {})
  }
}

const failure = await probe()

/** Why the PostgreSQL suites are skipped (unreachable server outside CI), or undefined when they run. */
export const skipReason: string | undefined =
  failure !== undefined && !inCi ? `no PostgreSQL reachable at ${databaseUrl} (${failure}); set DATABASE_URL to run these tests` : undefined

if (skipReason !== undefined) console.warn(`[spindle/store-postgres tests] skipping: ${skipReason}`)

/** A `describe` that is skipped, with the reason in its name, when PostgreSQL is unreachable and CI is not set. */
export function describePostgres(name: string, body: () => void): void {
  describe.skipIf(skipReason !== undefined)(skipReason === undefined ? name : `${name} (skipped: ${skipReason})`, body)
}

/** A schema name no other test uses. */
export function randomSchemaName(): string {
  return `spindle_test_${randomBytes(6).toString('hex')}`
}

/** Drops a test schema with everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  } finally {
    await client.end()
  }
}
