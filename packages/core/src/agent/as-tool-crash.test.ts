// Agent.asTool() across a crash: the caller's resume continues the call's sub-run (or takes its answer) instead of
// starting the sub-agent over, so the sub-agent's finished tool calls are not repeated.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Agent, AgentRuntime, defineTool, Extensions, memoryStores, mockModel, type MockTurn, type Stores } from '../index.js'
import type { ExecutionStore } from '../spec/execution-store.js'

/** A model whose next turn is read from the conversation (assistant messages so far), so a resumed run picks up the script. */
function byTurn(turns: MockTurn[]) {
  return mockModel((request) => turns[Math.min(request.messages.filter((message) => message.role === 'assistant').length, turns.length - 1)]!)
}

const never = new Promise<never>(() => {})

/** A sub-agent that books twice; `hangAt` makes a booking hang for ever (the process "dies" there). */
function setup(options: { hangAt?: number } = {}) {
  const effects: number[] = []
  const state = { dead: true }
  const book = defineTool({
    name: 'book',
    description: 'Books (not idempotent)',
    inputSchema: z.object({ n: z.number() }),
    effect: 'external',
    execute: ({ n }) => {
      if (n === options.hangAt && state.dead) return never
      effects.push(n)
      return `booked ${n}`
    },
  })
  const helperTurns: MockTurn[] = [
    { toolCalls: [{ name: 'book', args: { n: 1 }, id: 'b1' }] },
    { toolCalls: [{ name: 'book', args: { n: 2 }, id: 'b2' }] },
    { text: 'both booked' },
  ]
  const leadTurns: MockTurn[] = [{ toolCalls: [{ name: 'helper', args: { prompt: 'book them' }, id: 'h1' }] }, { text: 'lead done' }]
  const helperModels: Array<ReturnType<typeof byTurn>> = []
  const agents = () => {
    const model = byTurn(helperTurns)
    helperModels.push(model)
    const helper = new Agent({ name: 'helper', model, tools: { book } })
    return { lead: { name: 'lead', model: byTurn(leadTurns), tools: { helper: helper.asTool() } }, helper }
  }
  return { effects, state, agents, helperModels }
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; !(await condition()); tries++) {
    if (tries > 500) throw new Error('condition not reached')
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/** Starts the lead on a runtime that then "dies" (its stores untouched from then on); returns the two runs' ids. */
async function crashMidSubRun(stores: Stores, first: AgentRuntime, lead: ReturnType<ReturnType<typeof setup>['agents']>['lead'], journaled = 2) {
  void first.run({ agent: lead, input: 'go', sessionId: 'lead-session' })
  let sub: string | undefined
  await until(async () => {
    const runs = await stores.runs.listRuns()
    sub = runs.find((run) => run.request.parentRunId !== undefined)?.id
    return sub !== undefined && (await stores.executions.listByRun(sub)).length === journaled
  })
  const parent = (await stores.runs.listRuns()).find((run) => run.request.parentRunId === undefined)!.id
  return { parent, sub: sub! }
}

/** The lead started on a runtime that then "dies" mid-sub-run; a second runtime on the same stores, to recover with. */
async function crashed(fixture: ReturnType<typeof setup>) {
  const stores = memoryStores()
  const first = new AgentRuntime(new Extensions().setStores(stores), { leaseMs: 1 })
  const ids = await crashMidSubRun(stores, first, fixture.agents().lead)
  fixture.state.dead = false
  return { stores, ...ids, second: new AgentRuntime(new Extensions().setStores(stores)) }
}

describe('Agent.asTool after a crash', () => {
  it('recover() continues the sub-run, and the caller gets its answer: the booking done before the crash is not repeated', async () => {
    const fixture = setup({ hangAt: 2 })
    const { effects, agents, helperModels } = fixture
    const { stores, parent, sub, second } = await crashed(fixture)
    expect(effects).toEqual([1])
    const { lead, helper } = agents()
    const { resumed } = await (await second.recover({ agents: [lead, helper] })).done
    const leadOutput = resumed.find((output) => output.runId === parent)!
    expect(leadOutput).toMatchObject({ finishReason: 'stop', text: 'lead done' })
    // The lead's call answered with the sub-run's answer (not "outcome unknown"), once.
    const results = leadOutput.messages.filter((message) => message.role === 'tool').flatMap((message) => message.content)
    expect(results).toEqual([expect.objectContaining({ toolCallId: 'h1', result: 'both booked' })])
    // Booking 1 ran once; booking 2 (in flight at the crash) is reported unknown by the sub-run's journal, not re-run.
    expect(effects).toEqual([1])
    expect((await stores.runs.getRun(sub))?.status).toBe('completed')
    // One sub-run for the call, continued (not a second one started).
    expect((await stores.runs.listRuns()).filter((run) => run.request.parentRunId !== undefined)).toHaveLength(1)
    expect(helperModels[1]!.turnIndex).toBe(1)
  })

  it("recover() given only the caller's agent continues the sub-run through the caller's call (the sub-agent need not be listed)", async () => {
    const fixture = setup({ hangAt: 2 })
    const { effects, agents } = fixture
    const { stores, parent, sub, second } = await crashed(fixture)
    const { resumed, busy } = await (await second.recover({ agents: [agents().lead] })).done
    expect(busy).toEqual([])
    expect(resumed.map((output) => output.runId)).toEqual([parent])
    expect(resumed[0]!.messages.find((message) => message.role === 'tool')?.content[0]).toMatchObject({ toolCallId: 'h1', result: 'both booked' })
    expect((await stores.runs.getRun(sub))?.status).toBe('completed')
    expect(effects).toEqual([1])
  })

  it('resume() of the caller alone continues the sub-run from its last snapshot', async () => {
    const fixture = setup({ hangAt: 2 })
    const { effects, agents } = fixture
    const { stores, parent, sub, second } = await crashed(fixture)
    const output = await second.resume(parent, { agent: agents().lead })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'lead done' })
    expect(output.messages.find((message) => message.role === 'tool')?.content[0]).toMatchObject({ toolCallId: 'h1', result: 'both booked' })
    expect(effects).toEqual([1])
    const subRun = (await stores.runs.getRun(sub))!
    expect(subRun.status).toBe('completed')
    expect(subRun.sessionId).toMatch(/^sub_[0-9a-f]{40}$/)
    // The sub-run's own log: it was resumed, not started again.
    const subEvents = await stores.runs.listEvents(sub)
    expect(subEvents.filter((event) => event.type === 'run.started')).toHaveLength(1)
    expect(subEvents.filter((event) => event.type === 'run.resumed')).toHaveLength(1)
  })

  it("waits for the dead process's lease on the sub-run, which can outlive the caller's, then continues it", async () => {
    const fixture = setup({ hangAt: 2 })
    const { effects, agents } = fixture
    const { stores, parent, sub, second } = await crashed(fixture)
    // The sub-run's lease was renewed last: still held by the dead process for a while.
    await stores.runs.updateRun(sub, { lease: { owner: 'dead-worker', expiresAt: Date.now() + 300 } })
    await expect(second.resume(sub, { agent: agents().helper })).rejects.toMatchObject({ code: 'session_busy' })
    const output = await second.resume(parent, { agent: agents().lead })
    expect(output.messages.find((message) => message.role === 'tool')?.content[0]).toMatchObject({ toolCallId: 'h1', result: 'both booked' })
    expect(effects).toEqual([1])
    expect((await stores.runs.getRun(sub))?.status).toBe('completed')
  })

  it('a crash after the sub-run finished, before the caller recorded it: the answer is taken without calling the sub-agent again', async () => {
    const { effects, agents, helperModels } = setup()
    const stores = memoryStores()
    // The caller's journal never records the helper call's end: the process dies right after the sub-run ends.
    const executions: ExecutionStore = {
      specificationVersion: 'v1',
      start: (execution) => stores.executions.start(execution),
      finish: (key, outcome) => (key.endsWith(':h1') ? never : stores.executions.finish(key, outcome)),
      get: (key) => stores.executions.get(key),
      listByRun: (runId) => stores.executions.listByRun(runId),
    }
    const first = new AgentRuntime(new Extensions().setStores({ ...stores, executions }), { leaseMs: 1 })
    void first.run({ agent: agents().lead, input: 'go', sessionId: 'lead-session' })
    await until(async () => (await stores.runs.listRuns({ status: 'completed' })).length === 1)
    expect(effects).toEqual([1, 2])
    const [parent] = await stores.runs.listRuns({ status: 'running' })
    const second = new AgentRuntime(new Extensions().setStores(stores))
    const output = await second.resume(parent!.id, { agent: agents().lead })
    expect(output.messages.find((message) => message.role === 'tool')?.content[0]).toMatchObject({ toolCallId: 'h1', result: 'both booked' })
    expect(effects).toEqual([1, 2])
    // The second helper model was never called: the finished sub-run's answer was read.
    expect(helperModels[1]!.turnIndex).toBe(0)
  })

  it('a continued sub-run that suspends for approval fails the call with the calls it waits on, as a streamed one does', async () => {
    const paid: number[] = []
    const state = { dead: true }
    const book = defineTool({ name: 'book', description: 'Books', inputSchema: z.object({ n: z.number() }), execute: () => (state.dead ? never : 'booked') })
    const pay = defineTool({
      name: 'pay',
      description: 'Pays',
      inputSchema: z.object({ n: z.number() }),
      needsApproval: true,
      execute: ({ n }) => void paid.push(n),
    })
    const helperTurns: MockTurn[] = [
      { toolCalls: [{ name: 'book', args: { n: 1 }, id: 'b1' }] },
      { toolCalls: [{ name: 'pay', args: { n: 9 }, id: 'p1' }] },
      { text: 'paid' },
    ]
    const leadTurns: MockTurn[] = [{ toolCalls: [{ name: 'helper', args: { prompt: 'book and pay' }, id: 'h1' }] }, { text: 'lead done' }]
    const helper = () => new Agent({ name: 'helper', model: byTurn(helperTurns), tools: { book, pay } })
    const lead = () => ({ name: 'lead', model: byTurn(leadTurns), tools: { helper: helper().asTool() } })
    const stores = memoryStores()
    const { parent, sub } = await crashMidSubRun(stores, new AgentRuntime(new Extensions().setStores(stores), { leaseMs: 1 }), lead(), 1)
    state.dead = false
    const second = new AgentRuntime(new Extensions().setStores(stores))
    const output = await second.resume(parent, { agent: lead() })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'lead done' })
    expect((await stores.runs.getRun(sub))?.status).toBe('suspended')
    const failure = (await stores.runs.listEvents(parent)).find((event) => event.type === 'tool.error' && event.callId === 'h1')
    expect(failure?.type === 'tool.error' && failure.error.message).toContain(`(sub-run "${sub}"): it is suspended until a human decides on p1 (pay)`)
    expect(paid).toEqual([])
    // The pending call named is the one to decide: the sub-run then finishes.
    await second.approve(sub, 'p1', true)
    expect(await second.resume(sub, { agent: helper() })).toMatchObject({ finishReason: 'stop', text: 'paid' })
    expect(paid).toEqual([9])
  })

  it("each call's sub-run has a session of its own, named after the call", async () => {
    const writer = new Agent({ name: 'writer', model: mockModel((_request, index) => ({ text: `draft ${index}` })) })
    const runtime = new AgentRuntime()
    const lead = new Agent({
      name: 'lead',
      agentRuntime: runtime,
      model: mockModel([
        {
          toolCalls: [
            { name: 'writer', args: { prompt: 'a' }, id: 'w1' },
            { name: 'writer', args: { prompt: 'b' }, id: 'w2' },
          ],
        },
        { text: 'done' },
      ]),
      tools: { writer: writer.asTool() },
    })
    const output = await lead.generate({ prompt: 'write two' })
    expect(output.text).toBe('done')
    const subRuns = (await runtime.runs.listRuns()).filter((run) => run.request.parentRunId === output.runId)
    expect(subRuns).toHaveLength(2)
    expect(new Set(subRuns.map((run) => run.sessionId)).size).toBe(2)
    for (const run of subRuns) {
      expect(run.sessionId).toMatch(/^sub_[0-9a-f]{40}$/)
      expect(run.idempotencyKey).toMatch(new RegExp(`^${output.runId}:1:w[12]$`))
    }
  })
})
