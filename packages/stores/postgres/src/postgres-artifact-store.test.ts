// Artifacts on PostgreSQL: a process SIGKILLed in the middle of a put must not leave its chunks behind for good.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { postgresStores } from './index.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const schemas: string[] = []
afterEach(async () => {
  for (const name of schemas.splice(0)) await dropSchema(name)
})

/** Runs the interrupted upload in a child process and SIGKILLs it once its three chunks are written. */
async function killMidUpload(schema: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--conditions=@spindle/source', '--import', 'tsx', join(import.meta.dirname, 'test-support', 'interrupted-upload.ts'), databaseUrl, schema],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const exited = new Promise((resolve) => child.once('exit', resolve))
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => {
      if (data.toString().includes('written')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`the upload child exited (${code}) before writing its chunks`)))
  })
  child.kill('SIGKILL')
  await exited
}

describePostgres('PostgresArtifactStore', () => {
  it('removes the chunks of an upload whose process was SIGKILLed mid-put once it is a day old, and nothing else', async () => {
    const schema = randomSchemaName()
    schemas.push(schema)
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    const admin = new pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    try {
      await stores.migrate()
      const kept = await stores.artifacts.put(new Uint8Array(600 * 1024).fill(7))
      await killMidUpload(schema)
      const orphans = async () => Number((await admin.query(`SELECT count(*) AS n FROM "${schema}".artifact_chunks WHERE blob_id <> $1`, [kept.id])).rows[0].n)
      expect(await orphans()).toBe(3)

      // A process starting now leaves a recent upload alone: it may still be streaming in.
      const restarted = postgresStores({ connectionString: databaseUrl, schema })
      await restarted.migrate()
      await restarted.close()
      expect(await orphans()).toBe(3)

      // A day later, the next process to start removes it.
      await admin.query(`UPDATE "${schema}".artifact_uploads SET started_at = started_at - 86400001`)
      const later = postgresStores({ connectionString: databaseUrl, schema })
      await later.migrate()
      expect(await orphans()).toBe(0)
      expect((await admin.query(`SELECT count(*) AS n FROM "${schema}".artifact_uploads`)).rows[0].n).toBe('0')
      // The finished artifact is untouched.
      let size = 0
      for await (const chunk of later.artifacts.read(kept.id)) size += chunk.byteLength
      expect(size).toBe(600 * 1024)
      await later.close()
    } finally {
      await admin.end()
      await stores.close()
    }
  })
})
