// enqueue() returns at once; work() executes queued runs with bounded concurrency and shuts down gracefully.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, InProcessRunQueue, memoryStores, mockModel } from '../index.js'

describe('run queue', () => {
  it('enqueue returns a run id at once (the same id for the same idempotency key); work() runs them', async () => {
    const queue = new InProcessRunQueue()
    const extensions = new Extensions().setStores(memoryStores())
    extensions.queue = queue
    const runtime = new AgentRuntime(extensions)
    const agent = { name: 'echo', model: mockModel((request) => ({ text: `echo: ${JSON.stringify(request.messages.at(-1)?.content)}`, delayMs: 10 })) }
    const first = await runtime.enqueue({ agent, input: 'one', sessionId: 's1', idempotencyKey: 'k1' })
    const again = await runtime.enqueue({ agent, input: 'one', sessionId: 's1', idempotencyKey: 'k1' })
    const second = await runtime.enqueue({ agent, input: 'two', sessionId: 's2' })
    expect(again.runId).toBe(first.runId)
    expect((await runtime.runs.getRun(first.runId))?.status).toBe('queued')
    expect(queue.size).toBe(2)
    const controller = new AbortController()
    const working = runtime.work({ concurrency: 2, signal: controller.signal })
    const done = async (runId: string) => {
      for (;;) {
        const run = await runtime.runs.getRun(runId)
        if (run?.status === 'completed') return run
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    await Promise.all([done(first.runId), done(second.runId)])
    controller.abort()
    await working
    const log = await runtime.runs.listEvents(first.runId)
    expect(log[0]?.type).toBe('run.started')
    expect(log.some((event) => event.type === 'run.resumed')).toBe(false)
    expect(log.at(-1)).toMatchObject({ type: 'run.finished', text: 'echo: "one"' })
    const entries = await runtime.sessions.listEntries('s1')
    expect(entries.map((entry) => entry.kind === 'message' && entry.message.role)).toEqual(['user', 'assistant'])
  })

  it('graceful shutdown finishes the runs in flight and leaves the rest queued', async () => {
    const runtime = new AgentRuntime()
    const agent = { name: 'slow', model: mockModel(() => ({ text: 'done', delayMs: 40 })) }
    const ids = []
    for (let i = 0; i < 4; i++) ids.push((await runtime.enqueue({ agent, input: `job ${i}` })).runId)
    const controller = new AbortController()
    const working = runtime.work({ concurrency: 1, signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 10))
    controller.abort()
    await working
    const statuses = await Promise.all(ids.map(async (id) => (await runtime.runs.getRun(id))?.status))
    expect(statuses).toEqual(['completed', 'queued', 'queued', 'queued'])
    // A restarted worker process would recover the queued runs of an in-memory queue.
    const { resumed } = await (await runtime.recover({ agents: [agent] })).done
    expect(resumed.map((output) => output.text)).toEqual(['done', 'done', 'done'])
  })

  it("a worker reads a queued run's record once per job", async () => {
    const stores = memoryStores()
    const getRun = stores.runs.getRun.bind(stores.runs)
    const reads: string[] = []
    stores.runs.getRun = async (id) => {
      reads.push(id)
      return getRun(id)
    }
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const agent = { name: 'echo', model: mockModel([{ text: 'done' }]) }
    const { runId } = await runtime.enqueue({ agent, input: 'one' })
    const controller = new AbortController()
    const working = runtime.work({ signal: controller.signal })
    await expect.poll(async () => (await getRun(runId))?.status).toBe('completed')
    controller.abort()
    await working
    expect(reads.filter((id) => id === runId)).toHaveLength(1)
    expect((await runtime.runs.listEvents(runId)).at(-1)).toMatchObject({ type: 'run.finished', text: 'done' })
  })

  it('work() refuses a queue without work()', async () => {
    const extensions = new Extensions()
    extensions.queue = { specificationVersion: 'v1', enqueue: async () => {} }
    await expect(new AgentRuntime(extensions).work({ signal: AbortSignal.timeout(10) })).rejects.toThrow(/no work\(\) method/)
  })
})

describe('wait times', () => {
  it('run.started reports how long the run waited for its session and, when queued, in the queue', async () => {
    const runtime = new AgentRuntime()
    const agent = { name: 'slow', model: mockModel(() => ({ text: 'done', delayMs: 30 })) }
    const first = runtime.run({ agent, input: 'one', sessionId: 'w' })
    await new Promise((resolve) => setTimeout(resolve, 5))
    const second = await runtime.run({ agent, input: 'two', sessionId: 'w' })
    await first
    const [started] = (await runtime.runs.listEvents(second.runId)).filter((event) => event.type === 'run.started')
    expect(started).toMatchObject({ type: 'run.started' })
    expect(started?.type === 'run.started' && started.gateWaitMs).toBeGreaterThan(10)
    const { runId } = await runtime.enqueue({ agent, input: 'three' })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const controller = new AbortController()
    const working = runtime.work({ signal: controller.signal })
    for (;;) {
      if ((await runtime.runs.getRun(runId))?.status === 'completed') break
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    controller.abort()
    await working
    const [queued] = (await runtime.runs.listEvents(runId)).filter((event) => event.type === 'run.started')
    expect(queued?.type === 'run.started' && queued.queueWaitMs).toBeGreaterThanOrEqual(20)
  })

  it('a queued run behind a run awaiting approval waits in the queue, and runs once that run is resumed', async () => {
    const queue = new InProcessRunQueue({ busyDelayMs: 20, busyDelayMaxMs: 50 })
    const extensions = new Extensions().setStores(memoryStores())
    extensions.queue = queue
    const runtime = new AgentRuntime(extensions)
    const remove = defineTool({ name: 'remove', description: 'r', inputSchema: z.object({}), needsApproval: true, execute: async () => 'removed' })
    const asking = { name: 'asking', model: mockModel([{ toolCalls: [{ name: 'remove', args: {} }] }, { text: 'removed it' }]), tools: { remove } }
    const suspended = await runtime.run({ agent: asking, input: 'remove it', sessionId: 'ses_q' })
    expect(suspended.finishReason).toBe('awaiting_approval')
    const later = { name: 'later', model: mockModel([{ text: 'later answer' }]) }
    const { runId } = await runtime.enqueue({ agent: later, input: 'and then?', sessionId: 'ses_q' })
    const controller = new AbortController()
    const working = runtime.work({ concurrency: 1, signal: controller.signal })
    // Refused several times (session busy), and neither failed nor dropped.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect((await runtime.runs.getRun(runId))?.status).toBe('queued')
    expect(later.model.calls).toHaveLength(0)
    expect(queue.errors).toEqual([])
    const [call] = (await runtime.snapshots.latest(suspended.runId))!.state.pending as Array<{ callId: string }>
    await runtime.approve(suspended.runId, call!.callId, true)
    expect(await runtime.resume(suspended.runId)).toMatchObject({ text: 'removed it' })
    for (let i = 0; i < 200 && (await runtime.runs.getRun(runId))?.status !== 'completed'; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    controller.abort()
    await working
    expect(await runtime.runs.getRun(runId)).toMatchObject({ status: 'completed', finishReason: 'stop' })
    expect(later.model.calls[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user'])
  })
})
