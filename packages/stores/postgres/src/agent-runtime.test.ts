// The kernel's AgentRuntime on PostgreSQL: two runtimes with separate pools (two "processes") share a session.
import { AgentRuntime, type AgentEvent, Extensions, type LaggedEvent, mockModel } from '@spindle/core'
import { afterEach, expect, it } from 'vitest'
import { PostgresEventBus } from './postgres-event-bus.js'
import { PostgresSessionGate } from './postgres-session-gate.js'
import { postgresStores } from './postgres-stores.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
})

async function worker(schema: string): Promise<AgentRuntime> {
  const stores = postgresStores({ connectionString: databaseUrl, schema })
  const extensions = new Extensions().use(stores)
  extensions.gate = new PostgresSessionGate({ pool: stores.pool, schema, leaseTtlMs: 5000 })
  const bus = new PostgresEventBus({ pool: stores.pool, schema })
  extensions.events = bus
  cleanups.push(async () => {
    await bus.close()
    await (extensions.gate as PostgresSessionGate).close()
    await extensions.dispose()
  })
  await extensions.ready()
  await bus.ready()
  return new AgentRuntime(extensions, { onContention: 'queue', maxQueue: 20, queueTimeoutMs: 20_000 })
}

describePostgres('AgentRuntime on PostgreSQL', () => {
  it('runs on one session from two runtimes never overlap; the log is gap-free; events cross over the bus', async () => {
    const schema = randomSchemaName()
    cleanups.push(() => dropSchema(schema))
    const [a, b] = [await worker(schema), await worker(schema)]
    const agent = { name: 'echo', model: mockModel(() => ({ text: 'done', delayMs: 40 })) }
    const seen: Array<AgentEvent | LaggedEvent> = []
    const controller = new AbortController()
    const watching = (async () => {
      for await (const event of a.subscribe({ sessionId: 'shared', signal: controller.signal })) seen.push(event)
    })()
    const outputs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).run({ agent, sessionId: 'shared', input: `question ${i}` })),
    )
    expect(outputs.every((output) => output.finishReason === 'stop')).toBe(true)

    const runs = await a.runs.listRuns({ sessionId: 'shared' })
    expect(runs).toHaveLength(6)
    const intervals = runs.map((run) => [run.startedAt!, run.finishedAt!] as const).sort((x, y) => x[0] - y[0])
    for (let i = 1; i < intervals.length; i++) expect(intervals[i]![0]).toBeGreaterThanOrEqual(intervals[i - 1]![1])

    const entries = await b.sessions.listEntries('shared')
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, i) => i + 1))
    expect(entries.length).toBeGreaterThanOrEqual(12) // a question and an answer per run

    // Runtime a's subscriber saw the finish of runs executed by runtime b.
    const finishedByB = outputs.filter((_, i) => i % 2 === 1).map((output) => output.runId)
    await expect.poll(() => seen.filter((event) => event.type === 'run.finished').map((event) => (event as AgentEvent).runId), { timeout: 5000 }).toEqual(
      expect.arrayContaining(finishedByB),
    )
    controller.abort()
    await watching
  })

  it('the same idempotency key submitted to two runtimes yields one run', async () => {
    const schema = randomSchemaName()
    cleanups.push(() => dropSchema(schema))
    const [a, b] = [await worker(schema), await worker(schema)]
    const agent = { name: 'echo', model: mockModel(() => ({ text: 'once', delayMs: 30 })) }
    const [first, second] = await Promise.all([
      a.run({ agent, sessionId: 'idem', input: 'hi', idempotencyKey: 'k-1' }),
      b.run({ agent, sessionId: 'idem', input: 'hi', idempotencyKey: 'k-1' }),
    ])
    expect(second.runId).toBe(first.runId)
    expect(await a.runs.listRuns({ sessionId: 'idem' })).toHaveLength(1)
  })
})
