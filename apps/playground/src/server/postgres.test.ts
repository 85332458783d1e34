// The playground on PostgreSQL (chosen by databaseUrl), against the real server, in a schema of its own.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const schema = `playground_test_${process.pid}_${Date.now()}`
let playground: TestPlayground

beforeAll(async () => {
  playground = await startTestPlayground({ databaseUrl, databaseSchema: schema })
})
afterAll(async () => {
  if (!playground) return
  const pool = (playground.spindle.rawStores as unknown as { pool?: { query(sql: string): Promise<unknown> } }).pool
  // Runs stop (and are marked) before their tables go; stop() then closes the rest.
  await playground.manager.shutdown()
  await pool?.query(`drop schema if exists "${schema}" cascade`)
  await playground?.stop()
})

// A text-only run: tool-call snapshots currently fail on PostgreSQL (the kernel's call signature holds U+0000,
// which jsonb refuses) — reported to the kernel's owner.
it('with a database URL the stores are PostgreSQL, and a run completes and is logged there', async () => {
  expect((await playground.call('GET', '/api/config')).body.store).toBe('postgres')
  const sessionId = (await playground.call('POST', '/api/sessions', {})).body.session.id
  const started = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'hello' })
  const detail = await playground.waitForRun(started.body.runId, (body) => body.run.status !== 'running')
  expect(detail.run.error).toBeUndefined()
  expect(detail.run.status).toBe('completed')
  expect(detail.events.at(-1)).toMatchObject({ type: 'run.finished', finishReason: 'stop' })
  expect(detail.events.at(-1).text).toContain('I am the demo model')
  expect(detail.events.map((event: { seq: number }) => event.seq)).toEqual(detail.events.map((_: unknown, index: number) => index + 1))
  const messages = await playground.call('GET', `/api/sessions/${sessionId}/messages`)
  expect(messages.body.entries.map((entry: { message: { role: string } }) => entry.message.role)).toEqual(['user', 'assistant'])
})
