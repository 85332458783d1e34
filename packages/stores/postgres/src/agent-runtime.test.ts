// The kernel's AgentRuntime on PostgreSQL: two runtimes with separate pools (two "processes") share a session.
import { AgentRuntime, type AgentEvent, defineTool, Extensions, jsonSchema, type LaggedEvent, mockModel } from '@spindle/core'
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
    const outputs = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).run({ agent, sessionId: 'shared', input: `question ${i}` })))
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
    await expect
      .poll(() => seen.filter((event) => event.type === 'run.finished').map((event) => (event as AgentEvent).runId), { timeout: 5000 })
      .toEqual(expect.arrayContaining(finishedByB))
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

  it('a run whose input, model text and tool result hold U+0000 and an emoji split across two deltas completes, and reads back exactly', async () => {
    const schema = randomSchemaName()
    cleanups.push(() => dropSchema(schema))
    const runtime = await worker(schema)
    // mockModel streams text 8 UTF-16 units at a time: the emoji's halves end one delta and start the next.
    const said = 'reading😀 the file\u0000'
    // Over NOTIFY's limit: its tool.result event crosses the bus by reference to the run log.
    const content = `binary\u0000data \uD83D ${'x'.repeat(9_000)}`
    const readFile = defineTool({
      name: 'read_file',
      description: 'Reads a file',
      inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
      idempotent: true,
      execute: ({ path }) => ({ path, content }),
    })
    const model = mockModel((request) =>
      request.messages.some((message) => message.role === 'tool')
        ? { text: 'done \u0000' }
        : { text: said, toolCalls: [{ name: 'read_file', args: { path: 'a\u0000b' } }] },
    )
    const seen: AgentEvent[] = []
    const controller = new AbortController()
    const watching = (async () => {
      for await (const event of runtime.subscribe({ sessionId: 'nul', signal: controller.signal })) if (event.type !== 'lagged') seen.push(event)
    })()
    const output = await runtime.run({ agent: { name: 'reader', tools: { read_file: readFile }, model }, sessionId: 'nul', input: 'read \u0000 it' })
    expect(output.error).toBeUndefined()
    expect([output.finishReason, output.text]).toEqual(['stop', 'done \u0000'])

    const messages = (await runtime.sessions.listEntries('nul')).map((entry) => (entry.kind === 'message' ? entry.message : entry))
    expect(messages[0]).toEqual({ role: 'user', content: 'read \u0000 it' })
    expect(messages[1]).toMatchObject({
      role: 'assistant',
      content: expect.arrayContaining([{ type: 'text', text: said }, expect.objectContaining({ type: 'tool-call', args: { path: 'a\u0000b' } })]),
    })
    expect(messages[2]).toMatchObject({ role: 'tool', content: [expect.objectContaining({ type: 'tool-result', result: { path: 'a\u0000b', content } })] })
    const [execution] = await runtime.executions.listByRun(output.runId)
    expect([execution?.status, execution?.args, execution?.result]).toEqual(['succeeded', { path: 'a\u0000b' }, { path: 'a\u0000b', content }])

    const logged = await runtime.runs.listEvents(output.runId)
    const deltas = logged
      .filter((event) => event.type === 'text.delta' && event.step === 1)
      .map((event) => (event as Extract<AgentEvent, { type: 'text.delta' }>).delta)
    expect(deltas[0]).toBe('reading\uD83D')
    expect(deltas.join('')).toBe(said)
    expect(logged.find((event) => event.type === 'tool.result')).toMatchObject({ result: { path: 'a\u0000b', content } })
    // The bus delivered the same events, the lone halves and the large one included.
    await expect.poll(() => seen.some((event) => event.type === 'run.finished'), { timeout: 5000 }).toBe(true)
    controller.abort()
    await watching
    expect(seen.filter((event) => event.runId === output.runId)).toEqual(logged)
  })
})
