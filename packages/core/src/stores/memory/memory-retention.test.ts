// The memory stores' retention: finished sessions are evicted by count and age with everything they hold, never a
// session with a run going on; the default keeps a long-running process bounded.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  AgentRuntime,
  ConfigurationError,
  defineTool,
  Extensions,
  type ModelMessage,
  memoryStoreCounts,
  memoryStores,
  mockModel,
  NotFoundError,
  type Stores,
} from '../../index.js'

const text = (message: ModelMessage | undefined): string =>
  message === undefined ? '' : typeof message.content === 'string' ? message.content : JSON.stringify(message.content)

/** A two-step agent: a tool call whose output is too big for the context (kept as an artifact), then an answer. */
function agent() {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a question up',
    inputSchema: z.object({ question: z.string() }),
    idempotent: true,
    execute: ({ question }) => `${question}: ${'x'.repeat(400)}`,
  })
  const model = mockModel((request) => {
    const last = request.messages.at(-1)
    if (last?.role === 'tool') return { text: 'found it' }
    return { toolCalls: [{ name: 'lookup', args: { question: text(last) } }] }
  })
  return { name: 'finder', model, tools: { lookup } }
}

function storesOf(runtime: AgentRuntime): Stores {
  const { sessions, runs, executions, snapshots, embeddings, artifacts } = runtime
  return { sessions, runs, executions, snapshots, embeddings, artifacts }
}

const echo = { name: 'echo', model: mockModel((request) => ({ text: text(request.messages.at(-1)) })) }

/** `count` runs, each on a session of its own; the finder agent by default, the cheaper echo agent when asked. */
async function runMany(runtime: AgentRuntime, count: number, prefix = 's', cheap = false): Promise<string[]> {
  const runIds: string[] = []
  const finder = cheap ? echo : agent()
  for (let index = 0; index < count; index++) {
    const output = await runtime.run({ agent: finder, sessionId: `${prefix}-${index}`, input: `question ${prefix}-${index}` })
    expect(output.finishReason).toBe('stop')
    runIds.push(output.runId)
  }
  return runIds
}

describe('memory stores retention', () => {
  it('with a small limit, thousands of runs keep every record count bounded (and without retention they grow)', { timeout: 30_000 }, async () => {
    const stores = memoryStores({ retention: { maxSessions: 20 } })
    const runtime = new AgentRuntime(new Extensions().setStores(stores), { maxToolOutputBytes: 200 })
    await runMany(runtime, 40)
    const after40 = memoryStoreCounts(stores)
    expect(after40.sessions).toBe(20)
    expect(after40.artifacts).toBe(20)
    await runMany(runtime, 20, 'again')
    // The same 20 sessions' worth of records, whatever the number of runs.
    expect(memoryStoreCounts(stores)).toEqual(after40)
    await runMany(runtime, 2_000, 'more', true)
    const counts = memoryStoreCounts(stores)
    expect(counts).toMatchObject({ sessions: 20, runs: 20, executions: 0, artifacts: 0 })
    for (const kind of ['entries', 'events', 'snapshots'] as const) expect(counts[kind], kind).toBeLessThanOrEqual(after40[kind])
    expect(counts.events).toBeGreaterThan(0)
    expect(await runtime.sessions.listSessions()).toHaveLength(20)

    const unbounded = memoryStores({ retention: false })
    const keeping = new AgentRuntime(new Extensions().setStores(unbounded), { maxToolOutputBytes: 200 })
    await runMany(keeping, 100)
    expect(memoryStoreCounts(unbounded)).toMatchObject({ sessions: 100, runs: 100, executions: 100, artifacts: 100 })
  })

  it('the default (new AgentRuntime(new Extensions())) keeps the 1,000 most recently used finished sessions', { timeout: 30_000 }, async () => {
    const runtime = new AgentRuntime(new Extensions())
    const runIds = await runMany(runtime, 1_050, 's', true)
    const counts = memoryStoreCounts(storesOf(runtime))
    expect(counts.sessions).toBe(1_000)
    expect(counts.runs).toBe(1_000)
    expect(await runtime.runs.getRun(runIds[0]!)).toBeUndefined()
    expect(await runtime.runs.getRun(runIds[1_049]!)).toBeDefined()
  })

  it('an evicted session reads as not found, with its runs, events, snapshots, journal, artifacts and embeddings', async () => {
    const stores = memoryStores({ retention: { maxSessions: 1 } })
    const runtime = new AgentRuntime(new Extensions().setStores(stores), { maxToolOutputBytes: 200 })
    const [first] = await runMany(runtime, 1, 'old')
    const [artifact] = await stores.artifacts.list()
    expect(artifact?.metadata.runId).toBe(first)
    await stores.embeddings.upsert([
      { id: 'old-note', vector: [1, 0], metadata: { sessionId: 'old-0' } },
      { id: 'shared-note', vector: [0, 1] },
    ])
    // A user's own artifact (no run) is never evicted.
    const own = await stores.artifacts.put('kept by its owner')
    expect(await runtime.sessions.getSession('old-0')).toBeDefined()

    await runMany(runtime, 1, 'new')
    expect(await runtime.sessions.getSession('old-0')).toBeUndefined()
    expect(await runtime.sessions.listEntries('old-0')).toEqual([])
    expect(await runtime.runs.getRun(first!)).toBeUndefined()
    expect(await runtime.runs.listRuns({ sessionId: 'old-0' })).toEqual([])
    expect(await runtime.runs.listEvents(first!)).toEqual([])
    expect(await runtime.snapshots.latest(first!)).toBeUndefined()
    expect(await runtime.executions.listByRun(first!)).toEqual([])
    expect(await stores.artifacts.head(artifact!.id)).toBeUndefined()
    expect(await stores.embeddings.get('old-note')).toBeUndefined()
    expect(await stores.embeddings.get('shared-note')).toBeDefined()
    expect(await stores.artifacts.head(own.id)).toBeDefined()
    await expect(runtime.resume(first!)).rejects.toThrow(NotFoundError)
    // The id is free again: a new run on it starts a new session.
    const again = await runtime.run({ agent: agent(), sessionId: 'old-0', input: 'hello again' })
    expect(again.finishReason).toBe('stop')
    expect((await runtime.sessions.listEntries('old-0'))[0]).toMatchObject({ seq: 1, kind: 'message' })
  })

  it('never evicts a session whose run is queued, running, interrupted or awaiting approval', async () => {
    const stores = memoryStores({ retention: { maxSessions: 1 } })
    const extensions = new Extensions().setStores(stores)
    const runtime = new AgentRuntime(extensions, { requireApproval: ['lookup'] })
    // Awaiting approval, on a session that had a finished run before.
    const approvalAgent = agent()
    await runtime.run({ agent: { ...approvalAgent, tools: {} }, sessionId: 'approval', input: 'hello' })
    const suspended = await runtime.run({ agent: approvalAgent, sessionId: 'approval', input: 'look it up' })
    expect(suspended.finishReason).toBe('awaiting_approval')
    // Queued (enqueued, nobody works the in-process queue yet).
    const queued = await runtime.enqueue({ agent: echo, sessionId: 'queued', input: 'later' })
    // Running: its model waits until released.
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const slow = mockModel(async () => {
      await held
      return { text: 'done at last' }
    })
    const running = runtime.run({ agent: { name: 'slow', model: slow }, sessionId: 'running', input: 'take your time' })
    // Interrupted: written as a crashed process leaves it.
    await stores.sessions.createSession({ id: 'interrupted' })
    await stores.runs.createRun({ id: 'run-interrupted', sessionId: 'interrupted', status: 'completed', request: { input: 'before' } })
    await stores.runs.createRun({ id: 'run-crashed', sessionId: 'interrupted', status: 'running', request: { input: 'crashed' } })
    await stores.runs.updateRun('run-crashed', { status: 'interrupted' })

    const plain = new AgentRuntime(extensions)
    for (let index = 0; index < 30; index++)
      await plain.run({ agent: { name: 'echo', model: mockModel([{ text: 'hi' }]) }, sessionId: `other-${index}`, input: 'hi' })
    for (const sessionId of ['approval', 'queued', 'running', 'interrupted']) expect(await stores.sessions.getSession(sessionId), sessionId).toBeDefined()
    expect((await stores.runs.getRun(suspended.runId))?.status).toBe('suspended')
    expect((await stores.runs.getRun(queued.runId))?.status).toBe('queued')
    expect((await stores.runs.getRun('run-crashed'))?.status).toBe('interrupted')
    expect(await stores.runs.getRun('run-interrupted')).toBeDefined()
    expect(memoryStoreCounts(stores).sessions).toBe(5) // the four above and the last finished one

    // Once their runs are over, they are ordinary finished sessions: evicted as others finish after them.
    release()
    expect((await running).text).toBe('done at last')
    await runtime.approve(suspended.runId, pendingCall(await stores.runs.listEvents(suspended.runId)), true)
    expect((await runtime.resume(suspended.runId, { agent: approvalAgent })).finishReason).toBe('stop')
    expect((await runtime.resume(queued.runId)).finishReason).toBe('stop')
    await stores.runs.updateRun('run-crashed', { status: 'failed' })
    await plain.run({ agent: { name: 'echo', model: mockModel([{ text: 'hi' }]) }, sessionId: 'last', input: 'hi' })
    expect(await stores.sessions.listSessions()).toEqual([expect.objectContaining({ id: 'last' })])
  })

  it('evicts finished sessions unused for maxAgeMs; a read counts as a use', async () => {
    const stores = memoryStores({ retention: { maxSessions: 100, maxAgeMs: 300 } })
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    await runtime.run({ agent: echo, sessionId: 'idle', input: 'a' })
    await runtime.run({ agent: echo, sessionId: 'read', input: 'b' })
    for (let waited = 0; waited < 4; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(await stores.sessions.getSession('read')).toBeDefined()
    }
    // 'idle' outlived 300 ms without a use: the next read evicts it (and 'read', used 100 ms ago, stays).
    expect(await stores.sessions.getSession('idle')).toBeUndefined()
    expect(await stores.sessions.getSession('read')).toBeDefined()
    expect(memoryStoreCounts(stores)).toMatchObject({ sessions: 1, runs: 1 })
  })

  it('refuses a limit that is not a positive integer or a positive age with a ConfigurationError', () => {
    for (const retention of [
      { maxSessions: 0 },
      { maxSessions: 1.5 },
      { maxSessions: Number.NaN },
      { maxAgeMs: 0 },
      { maxAgeMs: -1 },
      { maxAgeMs: Number.NaN },
    ]) {
      expect(() => memoryStores({ retention }), JSON.stringify(retention)).toThrow(ConfigurationError)
    }
    expect(() => memoryStores({ retention: { maxSessions: 0 } })).toThrow(/"maxSessions" must be a positive integer/)
    expect(() => memoryStores({ retention: { maxSessions: Number.POSITIVE_INFINITY, maxAgeMs: 1_000 } })).not.toThrow()
  })
})

function pendingCall(events: Array<{ type: string }>): string {
  const requested = events.find((event) => event.type === 'approval.requested') as { callId?: string } | undefined
  return requested?.callId ?? ''
}
