// Concurrent approval decisions: every decision is kept, whether the calls race each other, a resume or a cancel,
// in one process or in two runtimes that share the stores and the session gate.
import { describe, expect, it } from 'vitest'
import { AgentRuntime, ConfigurationError, Extensions, InProcessSessionGate, memoryStores, mockModel, NotFoundError, type Stores } from '../index.js'
import { deleter } from '../test-support/approval-tools.js'
import type { RunState } from './run-state.js'

/** Stores whose snapshot reads take a while, as over a network: a read-modify-write race then always overlaps. */
function slowSnapshotReads(stores: Stores, delayMs = 5): Stores {
  const { snapshots } = stores
  const slow: Stores['snapshots'] = {
    specificationVersion: 'v1',
    save: (snapshot) => snapshots.save(snapshot),
    latest: async (runId) => {
      const snapshot = await snapshots.latest(runId)
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      return snapshot
    },
    get: (runId, version) => snapshots.get(runId, version),
    list: (runId) => snapshots.list(runId),
    deleteRun: (runId) => snapshots.deleteRun(runId),
  }
  return { ...stores, snapshots: slow }
}

/** A runtime (or two, sharing stores) with a run suspended on `files.length` calls awaiting approval. */
async function suspendedRun(files: string[], options: { stores?: Stores; extensions?: Extensions } = {}) {
  const ran: string[] = []
  const extensions = options.extensions ?? new Extensions().setStores(options.stores ?? slowSnapshotReads(memoryStores()))
  const runtime = new AgentRuntime(extensions)
  const model = mockModel([
    { toolCalls: files.map((file, index) => ({ name: 'del', args: { file }, id: `c${index}` })) },
    { text: 'done' },
    { text: 'done again' },
  ])
  const agent = { name: 'janitor', model, tools: { del: deleter(ran) } }
  const suspended = await runtime.run({ agent, input: `delete ${files.join(', ')}` })
  expect(suspended.finishReason).toBe('awaiting_approval')
  return { runtime, agent, runId: suspended.runId, ran, extensions }
}

async function decisions(runtime: AgentRuntime, runId: string): Promise<string[]> {
  const state = (await runtime.snapshots.latest(runId))!.state as unknown as RunState
  return state.pending.map((call) => `${call.callId}:${call.approval}`)
}

describe('approve() under concurrency', () => {
  it('two decisions made at once on one run are both kept, and the resume runs both calls', async () => {
    const { runtime, agent, runId, ran } = await suspendedRun(['a', 'b'])
    await Promise.all([runtime.approve(runId, 'c0', true), runtime.approve(runId, 'c1', true)])
    expect(await decisions(runtime, runId)).toEqual(['c0:approved', 'c1:approved'])
    const output = await runtime.resume(runId, { agent })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'done' })
    expect(ran.sort()).toEqual(['a', 'b'])
  })

  it('many mixed approvals and denials at once all land, with their reasons', async () => {
    const files = ['a', 'b', 'c', 'd', 'e', 'f']
    const { runtime, agent, runId, ran } = await suspendedRun(files)
    await Promise.all(files.map((_, index) => runtime.approve(runId, `c${index}`, index % 2 === 0 ? true : { approved: false, reason: `keep c${index}` })))
    expect(await decisions(runtime, runId)).toEqual(['c0:approved', 'c1:denied', 'c2:approved', 'c3:denied', 'c4:approved', 'c5:denied'])
    const state = (await runtime.snapshots.latest(runId))!.state as unknown as RunState
    expect(state.pending.filter((call) => call.reason).map((call) => call.reason)).toEqual(['keep c1', 'keep c3', 'keep c5'])
    expect((await runtime.resume(runId, { agent })).finishReason).toBe('stop')
    expect(ran.sort()).toEqual(['a', 'c', 'e'])
  })

  it('a failing decision in the queue does not block or undo the others', async () => {
    const { runtime, runId } = await suspendedRun(['a', 'b'])
    const [unknown, first, second] = await Promise.allSettled([
      runtime.approve(runId, 'nope', true),
      runtime.approve(runId, 'c0', true),
      runtime.approve(runId, 'c1', false),
    ])
    expect(unknown.status).toBe('rejected')
    expect((unknown as PromiseRejectedResult).reason).toBeInstanceOf(NotFoundError)
    expect((unknown as PromiseRejectedResult).reason.message).toMatch(/no pending call "nope"\. Calls awaiting approval: c0, c1/)
    expect([first.status, second.status]).toEqual(['fulfilled', 'fulfilled'])
    expect(await decisions(runtime, runId)).toEqual(['c0:approved', 'c1:denied'])
  })

  it('two runtimes sharing the stores and the session gate (two processes) keep both decisions', async () => {
    const stores = slowSnapshotReads(memoryStores())
    const gate = new InProcessSessionGate()
    const first = new Extensions().setStores(stores)
    first.gate = gate
    const { runtime, agent, runId, ran } = await suspendedRun(['a', 'b'], { extensions: first })
    const secondExtensions = new Extensions().setStores(stores)
    secondExtensions.gate = gate
    const other = new AgentRuntime(secondExtensions)
    await Promise.all([runtime.approve(runId, 'c0', true), other.approve(runId, 'c1', true)])
    expect(await decisions(runtime, runId)).toEqual(['c0:approved', 'c1:approved'])
    expect((await other.resume(runId, { agent })).finishReason).toBe('stop')
    expect(ran.sort()).toEqual(['a', 'b'])
  })

  it('a decision racing a resume is never lost: it lands before the resume reads the snapshot, or after the run suspends again', async () => {
    const { runtime, agent, runId, ran } = await suspendedRun(['a', 'b'])
    await runtime.approve(runId, 'c0', true)
    const [approval, resumed] = await Promise.allSettled([runtime.approve(runId, 'c1', true), runtime.resume(runId, { agent })])
    expect(approval.status).toBe('fulfilled')
    expect(resumed.status).toBe('fulfilled')
    let output = (resumed as PromiseFulfilledResult<Awaited<ReturnType<AgentRuntime['resume']>>>).value
    if (output.finishReason === 'awaiting_approval') {
      // The resume read the snapshot first and suspended again; the decision was recorded on that new suspension.
      expect(await decisions(runtime, runId)).toEqual(['c0:approved', 'c1:approved'])
      output = await runtime.resume(runId, { agent })
    }
    expect(output).toMatchObject({ finishReason: 'stop' })
    expect(ran.sort()).toEqual(['a', 'b'])
  })

  it('a decision racing cancel() either lands first or fails clearly; the run ends cancelled and no call runs', async () => {
    const { runtime, runId, ran } = await suspendedRun(['a'])
    const [approval, cancelled] = await Promise.allSettled([runtime.approve(runId, 'c0', true), runtime.cancel(runId)])
    expect(cancelled).toEqual({ status: 'fulfilled', value: true })
    if (approval.status === 'rejected') {
      expect(approval.reason).toBeInstanceOf(ConfigurationError)
      expect(approval.reason.message).toMatch(/not awaiting approval/)
    }
    expect((await runtime.runs.getRun(runId))?.status).toBe('cancelled')
    expect(ran).toEqual([])
    await expect(runtime.approve(runId, 'c0', true)).rejects.toThrow(/is cancelled, not awaiting approval/)
  })

  it('a decision made inside the stream loop, on the suspension event, waits for the run to let go of its session', async () => {
    const ran: string[] = []
    const runtime = new AgentRuntime()
    const agent = {
      name: 'janitor',
      model: mockModel([{ toolCalls: [{ name: 'del', args: { file: 'a' }, id: 'c0' }] }, { text: 'done' }]),
      tools: { del: deleter(ran) },
    }
    const stream = runtime.stream({ agent, input: 'delete a' })
    for await (const event of stream) {
      if (event.type === 'run.finished' && event.finishReason === 'awaiting_approval') await runtime.approve(event.runId, 'c0', true)
    }
    const { runId } = await stream.result
    expect(await decisions(runtime, runId)).toEqual(['c0:approved'])
    expect(await runtime.resume(runId, { agent })).toMatchObject({ finishReason: 'stop', text: 'done' })
    expect(ran).toEqual(['a'])
  })

  it('a decision waits for the session gate: it is written only once the holder releases the session', async () => {
    const { runtime, runId } = await suspendedRun(['a'])
    const sessionId = (await runtime.runs.getRun(runId))!.sessionId
    const holder = await runtime.sessionGate.acquire(sessionId, { owner: 'someone', onContention: 'reject', maxQueue: 0, queueTimeoutMs: 0 })
    let settled = false
    const approval = runtime.approve(runId, 'c0', true).finally(() => {
      settled = true
    })
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(settled).toBe(false)
    expect(await decisions(runtime, runId)).toEqual(['c0:required'])
    await holder.release()
    await approval
    expect(await decisions(runtime, runId)).toEqual(['c0:approved'])
  })
})

describe('a decision stands', () => {
  it('the same decision again is a no-op; another decision for a decided call, or one for a call that needs none, is refused', async () => {
    const ran: string[] = []
    const runtime = new AgentRuntime(new Extensions())
    const model = mockModel([
      {
        toolCalls: [
          { name: 'del', args: { file: 'a' }, id: 'd1' },
          { name: 'look', args: {}, id: 'r1' },
        ],
      },
      { text: 'done' },
    ])
    const look = { ...deleter([]), name: 'look', needsApproval: false }
    const suspended = await runtime.run({ agent: { name: 'j', model, tools: { del: deleter(ran), look } }, input: 'go' })
    expect(suspended.finishReason).toBe('awaiting_approval')
    await runtime.approve(suspended.runId, 'd1', true)
    await runtime.approve(suspended.runId, 'd1', true)
    await expect(runtime.approve(suspended.runId, 'd1', false)).rejects.toMatchObject({
      code: 'duplicate',
      message: expect.stringContaining('already approved'),
    })
    await expect(runtime.approve(suspended.runId, 'r1', true)).rejects.toThrow(/does not need approval/)
    expect(await decisions(runtime, suspended.runId)).toEqual(['d1:approved', 'r1:undefined'])
    expect((await runtime.resume(suspended.runId)).finishReason).toBe('stop')
    expect(ran).toEqual(['a'])
  })
})
