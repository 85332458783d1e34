// A run that a crash left unfinished keeps its session: a new run there is refused (SessionBusyError, nothing
// written) until the old one is resumed or cancelled. Found by QA on PostgreSQL, where a session's lease expired
// before the dead worker's job did and a later run of the session interleaved its messages with the dead one's.
import { expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, memoryStores, mockModel, SessionBusyError } from '../index.js'

it('a new run on a session whose last run is unfinished (running, then interrupted) is refused until that run is cancelled', async () => {
  const stores = memoryStores()
  // Two runtimes on the same stores, each with its own gate: like two processes whose shared lease has expired.
  let started!: () => void
  const entered = new Promise<void>((resolve) => (started = resolve))
  const hang = defineTool({ name: 'hang', description: 'h', inputSchema: z.object({}), execute: () => (started(), new Promise<never>(() => {})) })
  const crashed = new AgentRuntime(new Extensions().setStores(stores))
  // The later process has neither the old run's model nor its tool registered: it can still cancel that run.
  const later = new AgentRuntime(new Extensions().setStores(stores))
  const stuck = crashed.run({
    agent: { name: 'a', model: mockModel([{ toolCalls: [{ name: 'hang', args: {} }] }]), tools: { hang } },
    input: 'first',
    sessionId: 'ses_shared',
  })
  void stuck
  await entered
  const [owner] = await stores.runs.listRuns({ sessionId: 'ses_shared' })
  expect(owner?.status).toBe('running')
  const entriesBefore = (await stores.sessions.listEntries('ses_shared')).length
  const model = mockModel([{ text: 'second answer' }])
  const agent = { name: 'a', model, tools: { hang } }
  const refused = later.run({ agent, input: 'second', sessionId: 'ses_shared' })
  await expect(refused).rejects.toBeInstanceOf(SessionBusyError)
  await expect(refused).rejects.toThrow(`unfinished run "${owner!.id}" (running`)
  // Nothing was written: no run record, no entry.
  expect(await stores.runs.listRuns({ sessionId: 'ses_shared' })).toHaveLength(1)
  expect(await stores.sessions.listEntries('ses_shared')).toHaveLength(entriesBefore)
  // As recover({ mode: 'interrupt' }) leaves it: still refused, until it is cancelled (its open call gets a result).
  await stores.runs.updateRun(owner!.id, { status: 'interrupted', lease: undefined })
  await expect(later.run({ agent, input: 'second', sessionId: 'ses_shared' })).rejects.toThrow('(interrupted')
  expect(await later.cancel(owner!.id)).toBe(true)
  const output = await later.run({ agent, input: 'second', sessionId: 'ses_shared' })
  expect(output).toMatchObject({ finishReason: 'stop', text: 'second answer' })
  const roles = model.calls[0]!.messages.map((message) => message.role)
  expect(roles).toEqual(['user', 'assistant', 'tool', 'user'])
})

/**
 * Found by the PostgreSQL soak: run X's worker marked it running and died before appending X's question, so the
 * session's last entry was still an older, finished run's and run Y started there; Y's worker died mid-run too.
 * Resuming X then appended X's question between Y's tool call and its result.
 */
async function runStoppedBeforeItsInput() {
  const stores = memoryStores()
  let started!: () => void
  const entered = new Promise<void>((resolve) => (started = resolve))
  const hang = defineTool({ name: 'hang', description: 'h', inputSchema: z.object({}), execute: () => (started(), new Promise<never>(() => {})) })
  const crashed = new AgentRuntime(new Extensions().setStores(stores))
  const xModel = mockModel([{ text: 'x answer' }])
  const { runId: x } = await crashed.enqueue({ agent: { name: 'x', model: xModel }, input: 'question x', sessionId: 'ses_hole' })
  // X's worker took the job (running, its lease since expired) and died before anything reached the session.
  await stores.runs.updateRun(x, { status: 'running', startedAt: Date.now() - 60_000, lease: { owner: 'dead-worker', expiresAt: Date.now() - 1 } })
  void crashed.run({
    agent: { name: 'y', model: mockModel([{ toolCalls: [{ name: 'hang', args: {} }] }]), tools: { hang } },
    input: 'question y',
    sessionId: 'ses_hole',
  })
  await entered
  const y = (await stores.runs.listRuns({ sessionId: 'ses_hole' })).find((run) => run.id !== x)!.id
  const entriesBefore = await stores.sessions.listEntries('ses_hole')
  return { stores, x, y, xAgent: { name: 'x', model: xModel }, xModel, entriesBefore, later: new AgentRuntime(new Extensions().setStores(stores)) }
}

it('a run that a crash stopped before its input reached the session waits for the unfinished run appended after it', async () => {
  const { stores, x, y, xAgent, xModel, entriesBefore, later } = await runStoppedBeforeItsInput()
  const refused = later.resume(x, { agent: xAgent })
  await expect(refused).rejects.toBeInstanceOf(SessionBusyError)
  await expect(refused).rejects.toThrow(`unfinished run "${y}" (running`)
  expect(await stores.sessions.listEntries('ses_hole')).toEqual(entriesBefore)
  expect((await stores.runs.getRun(x))?.status).toBe('running')
  expect(xModel.calls).toHaveLength(0)
  // Once Y is closed, X runs after it, and each run's messages stay together.
  await stores.runs.updateRun(y, { status: 'interrupted', lease: undefined })
  expect(await later.cancel(y)).toBe(true)
  expect(await later.resume(x, { agent: xAgent })).toMatchObject({ finishReason: 'stop', text: 'x answer' })
  const owners = (await stores.sessions.listEntries('ses_hole')).flatMap((entry) => (entry.kind === 'message' ? [entry.runId] : []))
  expect(owners).toEqual([y, y, y, x, x])
  expect(xModel.calls[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user'])
})

it('cancelling a run that a crash stopped before its input reached the session writes nothing there', async () => {
  const { stores, x, later } = await runStoppedBeforeItsInput()
  // As recover({ mode: 'interrupt' }) leaves it; the later process has neither its model nor its tools.
  await stores.runs.updateRun(x, { status: 'interrupted', lease: undefined })
  const entriesBefore = await stores.sessions.listEntries('ses_hole')
  expect(await later.cancel(x)).toBe(true)
  expect(await stores.runs.getRun(x)).toMatchObject({ status: 'cancelled', finishReason: 'cancelled' })
  expect(await stores.sessions.listEntries('ses_hole')).toEqual(entriesBefore)
})

it('recover() resumes the run its session ends with first, then the queued run it held back', async () => {
  const stores = memoryStores()
  let started!: () => void
  const entered = new Promise<void>((resolve) => (started = resolve))
  const crashed = new AgentRuntime(new Extensions().setStores(stores), { leaseMs: 1 })
  const hangs = defineTool({ name: 'hang', description: 'h', inputSchema: z.object({}), execute: () => (started(), new Promise<never>(() => {})) })
  void crashed.run({
    agent: { name: 'y', model: mockModel([{ toolCalls: [{ name: 'hang', args: {} }] }]), tools: { hang: hangs } },
    input: 'question y',
    sessionId: 'ses_order',
  })
  await entered
  // The process dies with a run of the session mid-call and a later one in its in-memory queue.
  const { runId: queued } = await crashed.enqueue({ agent: { name: 'q', model: mockModel([]) }, input: 'question q', sessionId: 'ses_order' })
  const [y] = await stores.runs.listRuns({ status: ['running'] })
  await stores.runs.updateRun(y!.id, { lease: { owner: 'dead-worker', expiresAt: Date.now() - 1 } })
  // Newest first: the queued run comes first and is refused until the running one has finished.
  expect((await stores.runs.listRuns({ status: ['running', 'queued'] })).map((run) => run.id)).toEqual([queued, y!.id])
  const hang = defineTool({ name: 'hang', description: 'h', inputSchema: z.object({}), idempotent: true, execute: async () => 'done' })
  const agents = [
    { name: 'y', model: mockModel([{ text: 'y answer' }]), tools: { hang } },
    { name: 'q', model: mockModel([{ text: 'q answer' }]) },
  ]
  const { resumed, busy } = await (await new AgentRuntime(new Extensions().setStores(stores)).recover({ agents })).done
  expect(resumed.map((output) => [output.runId, output.text])).toEqual([
    [y!.id, 'y answer'],
    [queued, 'q answer'],
  ])
  expect(busy).toEqual([])
  const owners = (await stores.sessions.listEntries('ses_order')).flatMap((entry) => (entry.kind === 'message' ? [entry.runId] : []))
  expect(owners).toEqual([y!.id, y!.id, y!.id, y!.id, queued, queued])
})

it('a run awaiting approval keeps its session: a new or queued run there is refused until it is resumed or cancelled', async () => {
  const stores = memoryStores()
  const runtime = new AgentRuntime(new Extensions().setStores(stores))
  const remove = defineTool({ name: 'remove', description: 'r', inputSchema: z.object({}), needsApproval: true, execute: async () => 'removed' })
  const agent = { name: 'a', model: mockModel([{ toolCalls: [{ name: 'remove', args: {} }] }, { text: 'removed it' }]), tools: { remove } }
  const suspended = await runtime.run({ agent, input: 'remove it', sessionId: 'ses_wait' })
  expect(suspended.finishReason).toBe('awaiting_approval')
  const entriesBefore = await stores.sessions.listEntries('ses_wait')
  const model = mockModel([{ text: 'hello back' }, { text: 'queued answer' }])
  const refused = runtime.run({ agent: { name: 'b', model }, input: 'hello', sessionId: 'ses_wait' })
  await expect(refused).rejects.toBeInstanceOf(SessionBusyError)
  await expect(refused).rejects.toThrow(`run "${suspended.runId}" awaiting approval`)
  const { runId: queued } = await runtime.enqueue({ agent: { name: 'b', model }, input: 'later', sessionId: 'ses_wait' })
  await expect(runtime.resume(queued)).rejects.toBeInstanceOf(SessionBusyError)
  expect(await stores.sessions.listEntries('ses_wait')).toEqual(entriesBefore)
  expect(model.calls).toHaveLength(0)
  // Approved and resumed: the call is answered where it was asked, and the other runs follow.
  const [call] = (await runtime.snapshots.latest(suspended.runId))!.state.pending as Array<{ callId: string }>
  await runtime.approve(suspended.runId, call!.callId, true)
  expect(await runtime.resume(suspended.runId)).toMatchObject({ finishReason: 'stop', text: 'removed it' })
  expect(await runtime.run({ agent: { name: 'b', model }, input: 'hello', sessionId: 'ses_wait' })).toMatchObject({ text: 'hello back' })
  expect(await runtime.resume(queued)).toMatchObject({ text: 'queued answer' })
  expect(model.calls[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user'])
})
