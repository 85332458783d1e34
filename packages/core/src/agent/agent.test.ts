import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AbortedError, AdmissionError, DisposedValueError } from '../errors/errors.js'
import { Extensions } from '../extensions/extensions.js'
import { mockModel } from '../providers/mock-model.js'
import { AgentRuntime } from '../runtime/agent-runtime.js'
import { createRuntimeTool } from '../tools/create-runtime-tool.js'
import { createRuntimeResourceRegistry } from '../runtime-store/resource-registry.js'
import { deleter } from '../test-support/approval-tools.js'
import { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { AgentEvent } from '../spec/events.js'
import type { ModelRequest } from '../spec/language-model.js'
import type { MockTurn } from '../providers/mock-model.js'
import { defineTool } from '../tools/define-tool.js'
import { Agent } from './agent.js'

/** A runtime whose one cleanup counts how often it ran. */
function countedRuntime() {
  const counter = { cleanups: 0 }
  const runtime = new RuntimeStore<{ resource: { open: boolean } }>().set('resource', { open: true })
  runtime.onCleanup('resource', (resource) => {
    counter.cleanups++
    if (resource) resource.open = false
  })
  return { runtime, counter }
}

/** A cancelled stream either ends its run with `cancelled`, or, cancelled before the run started, rejects with AbortedError. */
async function endedCancelled(result: Promise<{ finishReason: string }>): Promise<boolean> {
  return result.then(
    (output) => output.finishReason === 'cancelled',
    (error: unknown) => AbortedError.isInstance(error),
  )
}

function lastUserText(request: ModelRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index]!
    if (message.role === 'user') return typeof message.content === 'string' ? message.content : ''
  }
  return ''
}

function lastToolResult(request: ModelRequest): unknown {
  const last = request.messages[request.messages.length - 1]
  return last?.role === 'tool' ? last.content.map((part) => part.result) : undefined
}

describe('Agent.generate', () => {
  it('runs on a default in-memory AgentRuntime and returns the RunOutput', async () => {
    const agent = new Agent({ name: 'helper', instructions: 'Be brief.', model: mockModel([{ text: 'Hi!' }]) })
    const output = await agent.generate({ prompt: 'Hello' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'Hi!', steps: 1 })
    expect(output.runId).toMatch(/\S/)
    expect(agent.agentRuntime).toBeInstanceOf(AgentRuntime)
    expect(await agent.agentRuntime.runs.getRun(output.runId)).toMatchObject({ status: 'completed' })
  })

  it('resolves a provider:model id through the AgentRuntime it is given, and continues a session', async () => {
    const extensions = new Extensions()
    const model = mockModel([{ text: 'first' }, { text: 'second' }])
    extensions.providers.registerModel('mock:scripted', model)
    const agent = new Agent({ name: 'by-id', model: 'mock:scripted', agentRuntime: new AgentRuntime(extensions) })
    const first = await agent.generate({ prompt: 'one' })
    const second = await agent.generate({ prompt: 'two', sessionId: first.sessionId })
    expect([first.text, second.text]).toEqual(['first', 'second'])
    expect(model.calls[1]!.messages.filter((message) => message.role === 'user')).toHaveLength(2)
  })

  it('runs the cleanups once when generation fails (model error) and when the request is rejected', async () => {
    const failing = countedRuntime()
    const broken = new Agent({ name: 'broken', model: mockModel([{ error: new Error('model down') }]), policy: { modelRetry: { maxRetries: 0 } } })
    const output = await broken.generate({ prompt: 'x', runtime: failing.runtime })
    expect(output.finishReason).toBe('error')
    expect(failing.counter.cleanups).toBe(1)

    const rejected = countedRuntime()
    await expect(new Agent({ name: 'empty', model: mockModel([]) }).generate({ prompt: '', runtime: rejected.runtime })).rejects.toBeInstanceOf(AdmissionError)
    expect(rejected.counter.cleanups).toBe(1)
    expect(() => rejected.runtime.get('resource')).toThrow(DisposedValueError)
  })

  it('a second request on a runtime whose cleanup already ran gets a clear error, never the destroyed object', async () => {
    const workbook = { destroyed: false, read: () => (workbook.destroyed ? 'DESTROYED DATA' : 'fresh data') }
    const parent = new RuntimeStore().set('workbook', workbook)
    parent.onCleanup('workbook', () => {
      workbook.destroyed = true
    })
    const read = createRuntimeTool({
      id: 'workbook.read',
      description: 'reads the workbook',
      inputSchema: z.object({}),
      execute: (_input, { runtime }) => runtime.require<typeof workbook>('workbook').read(),
    })
    const model = mockModel((request): MockTurn => (lastToolResult(request) ? { text: 'done' } : { toolCalls: [{ name: 'read', args: {} }] }))
    const agent = new Agent({ name: 'reader', model, tools: { read } })
    await agent.generate({ prompt: 'first', runtime: parent })
    expect(workbook.destroyed).toBe(true)
    await agent.generate({ prompt: 'second', runtime: parent })
    const firstResult = JSON.stringify(model.calls[1]!.messages.at(-1))
    const secondResult = JSON.stringify(model.calls[3]!.messages.at(-1))
    expect(firstResult).toContain('fresh data')
    expect(secondResult).not.toContain('DESTROYED DATA')
    expect(secondResult).toMatch(/runtime value \\"workbook\\" was disposed at/)
  })

  it('keeps tool writes in the call: the parent runtime never sees them', async () => {
    const remember = createRuntimeTool({
      id: 'remember',
      description: 'stores a note',
      inputSchema: z.object({ note: z.string() }),
      execute: ({ note }, { runtime }) => {
        runtime.set('note', note)
        return runtime.require('note')
      },
    })
    const parent = new RuntimeStore()
    const agent = new Agent({
      name: 'writer',
      model: mockModel([{ toolCalls: [{ name: 'remember', args: { note: 'secret' } }] }, { text: 'done' }]),
      tools: [remember],
    })
    await agent.generate({ prompt: 'remember', runtime: parent })
    expect(parent.has('note')).toBe(false)
  })

  it('100 concurrent generate calls on one parent runtime: no cross-talk, each cleanup once, nothing left registered', async () => {
    const parent = new RuntimeStore<{ tenant: string }>().set('tenant', 'acme')
    const perRequestCleanups = new Map<string, number>()
    const claim = createRuntimeTool({
      id: 'request.claim',
      description: 'stores the request id in the runtime, waits, and reads it back',
      inputSchema: z.object({ id: z.string() }),
      async execute({ id }, { runtime }) {
        const before = runtime.get<string>('requestId')
        runtime.set('requestId', id).set('connection', { id })
        runtime.onCleanup('connection', () => void perRequestCleanups.set(id, (perRequestCleanups.get(id) ?? 0) + 1))
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 5)))
        return {
          before: before ?? null,
          after: runtime.require('requestId'),
          current: RuntimeStore.requireCurrent().get('requestId'),
          tenant: runtime.require('tenant'),
        }
      },
    })
    const model = mockModel((request) =>
      lastToolResult(request) ? { text: JSON.stringify(lastToolResult(request)) } : { toolCalls: [{ name: 'claim', args: { id: lastUserText(request) } }] },
    )
    const agent = new Agent({ name: 'concurrent', model, tools: { claim } })
    const ids = Array.from({ length: 100 }, (_, index) => `req-${index}`)
    const outputs = await Promise.all(ids.map((id) => agent.generate({ prompt: id, runtime: parent })))
    outputs.forEach((output, index) => {
      expect(JSON.parse(output.text)).toEqual([{ before: null, after: ids[index], current: ids[index], tenant: 'acme' }])
    })
    expect(perRequestCleanups.size).toBe(100)
    expect([...perRequestCleanups.values()].every((count) => count === 1)).toBe(true)
    expect(parent.pendingCleanups()).toEqual([])
    expect(parent.keys()).toEqual(['tenant'])
  })

  it('parallel tool calls of two concurrent requests each see their own request runtime', async () => {
    const arrived: string[] = []
    let release: () => void = () => {}
    const bothInside = new Promise<void>((resolve) => {
      release = resolve
    })
    const whoAmI = createRuntimeTool({
      id: 'who',
      description: 'reads the user of the request',
      inputSchema: z.object({ order: z.number() }),
      async execute({ order }, { runtime }) {
        arrived.push(runtime.require<string>('user'))
        if (arrived.length === 4) release()
        await bothInside
        await new Promise((resolve) => setTimeout(resolve, order))
        return { user: runtime.require('user'), current: RuntimeStore.requireCurrent().require('user') }
      },
    })
    const slow = defineTool({ name: 'noop', description: 'noop', inputSchema: z.object({}), execute: async () => 'noop' })
    const model = mockModel((request): MockTurn =>
      lastToolResult(request)
        ? { text: JSON.stringify(lastToolResult(request)) }
        : {
            toolCalls: [
              { name: 'whoAmI', args: { order: 3 } },
              { name: 'noop', args: {} },
              { name: 'whoAmI', args: { order: 1 } },
            ],
          },
    )
    const agent = new Agent({ name: 'parallel', model, tools: { whoAmI, noop: slow } })
    const [ada, bob] = await Promise.all(['ada', 'bob'].map((user) => agent.generate({ prompt: user, runtime: new RuntimeStore().set('user', user) })))
    expect(arrived.sort()).toEqual(['ada', 'ada', 'bob', 'bob'])
    expect(JSON.parse(ada!.text).filter((result: unknown) => result !== 'noop')).toEqual([
      { user: 'ada', current: 'ada' },
      { user: 'ada', current: 'ada' },
    ])
    expect(JSON.parse(bob!.text).filter((result: unknown) => result !== 'noop')).toEqual([
      { user: 'bob', current: 'bob' },
      { user: 'bob', current: 'bob' },
    ])
  })

  it('runtime.load inside a run uses the AgentRuntime registry (Extensions.runtimeResources) before the module one', async () => {
    const extensions = new Extensions()
    const disposed: string[] = []
    extensions.runtimeResources = createRuntimeResourceRegistry()
    extensions.runtimeResources.register('credentials', { loader: (tenant: string) => `token-for-${tenant}`, dispose: (token) => void disposed.push(token) })
    const connect = createRuntimeTool({
      id: 'connect',
      description: 'loads credentials',
      inputSchema: z.object({ tenant: z.string() }),
      execute: ({ tenant }, { runtime }) => runtime.load('credentials', tenant),
    })
    const model = mockModel([{ toolCalls: [{ name: 'connect', args: { tenant: 'acme' } }] }, { text: 'connected' }])
    const agent = new Agent({ name: 'tenant', model, tools: { connect }, agentRuntime: new AgentRuntime(extensions) })
    await agent.generate({ prompt: 'connect', runtime: new RuntimeStore() })
    expect(lastToolResult(model.calls[1]!)).toEqual(['token-for-acme'])
    expect(disposed).toEqual(['token-for-acme'])
  })
})

describe('Agent.stream', () => {
  const longText = 'word '.repeat(40)

  it('yields the run events, then text and result, and runs the cleanups when the stream completes', async () => {
    const { runtime, counter } = countedRuntime()
    const agent = new Agent({ name: 'streamer', model: mockModel([{ text: 'streamed answer', chunkSize: 3 }]) })
    const stream = agent.stream({ prompt: 'go', runtime })
    const types: string[] = []
    for await (const event of stream) types.push(event.type)
    expect(types[0]).toBe('run.started')
    expect(types.at(-1)).toBe('run.finished')
    expect(types.filter((type) => type === 'text.delta').length).toBeGreaterThan(1)
    expect(counter.cleanups).toBe(1)
    expect(await stream.text).toBe('streamed answer')
    expect((await stream.result).finishReason).toBe('stop')
  })

  it('break out of for await cancels the run and the cleanups have run when the loop exits', async () => {
    const { runtime, counter } = countedRuntime()
    const agent = new Agent({ name: 'breaker', model: mockModel([{ text: longText, chunkSize: 2, delayMs: 100 }]) })
    const stream = agent.stream({ prompt: 'go', runtime })
    let deltas = 0
    for await (const event of stream) {
      if (event.type === 'text.delta' && ++deltas === 2) break
    }
    expect(counter.cleanups).toBe(1)
    const output = await stream.result
    expect(output.finishReason).toBe('cancelled')
    expect(output.text.length).toBeLessThan(longText.length)
  })

  it('return() before reading anything cancels the run and runs the cleanups', async () => {
    const { runtime, counter } = countedRuntime()
    const agent = new Agent({ name: 'returner', model: mockModel([{ text: longText, chunkSize: 2, delayMs: 200 }]) })
    const stream = agent.stream({ prompt: 'go', runtime })
    const iterator = stream[Symbol.asyncIterator]()
    await iterator.return?.()
    expect(counter.cleanups).toBe(1)
    expect(await endedCancelled(stream.result)).toBe(true)
    expect(await iterator.next()).toEqual({ value: undefined, done: true })
  })

  it('a stream nobody reads still completes and runs its cleanups; its events stay readable', async () => {
    const { runtime, counter } = countedRuntime()
    const agent = new Agent({ name: 'unread', model: mockModel([{ text: 'nobody listens' }]) })
    const stream = agent.stream({ prompt: 'go', runtime })
    const output = await stream.result
    expect(output.text).toBe('nobody listens')
    expect(counter.cleanups).toBe(1)
    const events: AgentEvent[] = []
    for await (const event of stream) events.push(event)
    expect(events.at(-1)?.type).toBe('run.finished')
  })

  it('cancel() mid-run ends it with cancelled, after the cleanups ran', async () => {
    const { runtime, counter } = countedRuntime()
    const agent = new Agent({ name: 'mid-run', model: mockModel([{ text: longText, chunkSize: 2, delayMs: 200 }]) })
    const stream = agent.stream({ prompt: 'go', runtime })
    for await (const event of stream) if (event.type === 'step.started') break
    expect(counter.cleanups).toBe(1)
    expect((await stream.result).finishReason).toBe('cancelled')
  })

  it('cancel() before the run started stops it and resolves after the cleanups ran', async () => {
    const { runtime, counter } = countedRuntime()
    const agent = new Agent({ name: 'cancelled', model: mockModel([{ text: longText, chunkSize: 2, delayMs: 200 }]) })
    const stream = agent.stream({ prompt: 'go', runtime })
    await stream.cancel()
    expect(counter.cleanups).toBe(1)
    expect(await endedCancelled(stream.result)).toBe(true)
  })

  it('an already-aborted signal cancels at once and still cleans up', async () => {
    const { runtime, counter } = countedRuntime()
    const controller = new AbortController()
    controller.abort()
    const agent = new Agent({ name: 'aborted', model: mockModel([{ text: 'never' }]) })
    const stream = agent.stream({ prompt: 'go', runtime, signal: controller.signal })
    expect(await endedCancelled(stream.result)).toBe(true)
    expect(counter.cleanups).toBe(1)
  })

  it('a run that fails to start makes iteration throw, after the cleanups ran', async () => {
    const { runtime, counter } = countedRuntime()
    const stream = new Agent({ name: 'rejected', model: mockModel([]) }).stream({ prompt: '', runtime })
    const error = await (async () => {
      for await (const _event of stream) {
        // no events: admission rejects the request
      }
    })().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(AdmissionError)
    expect(counter.cleanups).toBe(1)
    await expect(stream.result).rejects.toBeInstanceOf(AdmissionError)
    await expect(stream.text).rejects.toBeInstanceOf(AdmissionError)
  })

  it('a failing model ends the stream with run.failed and the cleanups ran', async () => {
    const { runtime, counter } = countedRuntime()
    const agent = new Agent({ name: 'failing', model: mockModel([{ error: new Error('boom') }]), policy: { modelRetry: { maxRetries: 0 } } })
    const types: string[] = []
    for await (const event of agent.stream({ prompt: 'go', runtime })) types.push(event.type)
    expect(types.at(-1)).toBe('run.failed')
    expect(counter.cleanups).toBe(1)
  })

  it('can be read once; textStream yields only the text deltas', async () => {
    const agent = new Agent({ name: 'text', model: mockModel([{ text: 'ab cd ef', chunkSize: 3 }]) })
    const stream = agent.stream({ prompt: 'go' })
    const chunks: string[] = []
    for await (const chunk of stream.textStream) chunks.push(chunk)
    expect(chunks).toEqual(['ab ', 'cd ', 'ef'])
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/can be read once/)
  })
})

describe('Agent.asTool', () => {
  it('runs the sub-agent on the caller AgentRuntime with the caller values, returning its final text', async () => {
    const extensions = new Extensions()
    const agentRuntime = new AgentRuntime(extensions)
    const readNote = createRuntimeTool({
      id: 'note.read',
      description: 'reads the note',
      inputSchema: z.object({}),
      execute: (_input, { runtime }) => runtime.require<{ text: string }>('note').text,
    })
    const researcherModel = mockModel([{ toolCalls: [{ name: 'readNote', args: {} }] }, { text: 'the note says hi' }])
    const researcher = new Agent({ name: 'researcher', description: 'Reads notes', model: researcherModel, tools: { readNote } })
    const tool = researcher.asTool()
    expect(tool.name).toBe('researcher')
    expect(tool.id).toBe('agent.researcher')
    expect(tool.description).toBe('Reads notes')

    const leadModel = mockModel([{ toolCalls: [{ name: 'researcher', args: { prompt: 'what does the note say?' } }] }, { text: 'done' }])
    const lead = new Agent({ name: 'lead', model: leadModel, tools: [tool], agentRuntime })
    const note = { text: 'hi', closed: 0 }
    const runtime = new RuntimeStore().set('note', note)
    runtime.onCleanup('note', () => void note.closed++)
    const output = await lead.generate({ prompt: 'ask the researcher', runtime })

    expect(output.text).toBe('done')
    expect(lastToolResult(leadModel.calls[1]!)).toEqual(['the note says hi'])
    expect(lastToolResult(researcherModel.calls[1]!)).toEqual(['hi'])
    // The sub-run borrowed the caller's values: the caller's cleanup ran once, at the end of the outer request.
    expect(note.closed).toBe(1)
    expect(researcher.agentRuntime).not.toBe(agentRuntime)
    const runs = await agentRuntime.runs.listRuns({ limit: 10 })
    const subRun = runs.find((run) => run.id !== output.runId)
    expect(subRun?.request.parentRunId).toBe(output.runId)
  })

  it('a sub-agent failure becomes a tool error the caller model sees', async () => {
    const broken = new Agent({ name: 'broken', model: mockModel([{ error: new Error('sub model down') }]), policy: { modelRetry: { maxRetries: 0 } } })
    const leadModel = mockModel([{ toolCalls: [{ name: 'helper', args: { prompt: 'help' } }] }, { text: 'recovered' }])
    const lead = new Agent({ name: 'lead', model: leadModel, tools: { helper: broken.asTool({ name: 'helper', description: 'helps' }) } })
    const output = await lead.generate({ prompt: 'go' })
    expect(output.text).toBe('recovered')
    expect(JSON.stringify(leadModel.calls[1]!.messages.at(-1))).toMatch(/agent \\"broken\\" ended with error/)
  })
})

/** The `tool.error` the parent run emitted for its call to a sub-agent, and the sub-run's record. */
async function failedSubRun(agentRuntime: AgentRuntime, lead: Agent) {
  const stream = agentRuntime.stream({ agent: lead, input: 'delegate' })
  const events: AgentEvent[] = []
  for await (const event of stream) events.push(event)
  const output = await stream.result
  const error = events.find((event) => event.type === 'tool.error' && event.runId === output.runId)
  const subRun = (await agentRuntime.runs.listRuns({ limit: 10 })).find((run) => run.id !== output.runId)
  return { output, message: error?.type === 'tool.error' ? error.error.message : undefined, subRun: subRun! }
}

/** A lead agent that delegates once to `sub` and then answers. */
function leadOf(sub: Agent, agentRuntime: AgentRuntime) {
  const model = mockModel([{ toolCalls: [{ name: 'sub', args: { prompt: 'do it' } }] }, { text: 'the lead answers' }])
  return { model, lead: new Agent({ name: 'lead', model, tools: { sub: sub.asTool({ name: 'sub' }) }, agentRuntime }) }
}

describe('Agent.asTool: a sub-run without a final answer', () => {
  const echo = defineTool({ name: 'echo', description: 'echoes', inputSchema: z.object({ value: z.string() }), execute: ({ value }) => value })

  it('awaiting_approval fails the call with the sub-run id and its pending calls; the sub-run stays suspended and can be finished', async () => {
    const ran: string[] = []
    const del = deleter(ran)
    const agentRuntime = new AgentRuntime()
    const janitorModel = mockModel([{ toolCalls: [{ name: 'del', args: { file: 'prod.db' }, id: 'd1' }] }, { text: 'deleted it' }])
    const janitor = new Agent({ name: 'janitor', model: janitorModel, tools: { del }, agentRuntime })
    const { model, lead } = leadOf(janitor, agentRuntime)
    const { output, message, subRun } = await failedSubRun(agentRuntime, lead)

    expect(output).toMatchObject({ finishReason: 'stop', text: 'the lead answers' })
    expect(subRun).toMatchObject({ status: 'suspended', finishReason: 'awaiting_approval' })
    expect(message).toContain(`agent "janitor" ended with awaiting_approval (sub-run "${subRun.id}"): it is suspended until a human decides on d1 (del)`)
    expect(message).toContain(`approve("${subRun.id}", callId, decision), then resume("${subRun.id}")`)
    // The lead's model got an error, not an empty success.
    const last = model.calls[1]!.messages.at(-1)
    expect(last?.role === 'tool' && last.content[0]).toMatchObject({ isError: true, result: { error: expect.stringContaining('awaiting_approval') } })
    expect(ran).toEqual([])

    await agentRuntime.approve(subRun.id, 'd1', true)
    expect(await agentRuntime.resume(subRun.id)).toMatchObject({ finishReason: 'stop', text: 'deleted it' })
    expect(ran).toEqual(['prod.db'])
  })

  it('max_steps fails the call with the reason, the sub-run id and the partial answer', async () => {
    const agentRuntime = new AgentRuntime()
    const worker = new Agent({
      name: 'worker',
      model: mockModel([{ text: 'Checked the first half.', toolCalls: [{ name: 'echo', args: { value: 'a' } }] }]),
      tools: { echo },
      policy: { maxSteps: 1 },
      agentRuntime,
    })
    const { model, lead } = leadOf(worker, agentRuntime)
    const { output, message, subRun } = await failedSubRun(agentRuntime, lead)

    expect(output.finishReason).toBe('stop')
    expect(subRun.finishReason).toBe('max_steps')
    expect(message).toContain(
      `agent "worker" ended with max_steps (sub-run "${subRun.id}"): it reached its step limit (policy.maxSteps) without a final answer.`,
    )
    expect(message).toContain('Partial answer: Checked the first half.')
    const last = model.calls[1]!.messages.at(-1)
    expect(last?.role === 'tool' && last.content[0]?.isError).toBe(true)
  })

  it.each([
    ['max_tool_calls', { maxToolCalls: 0 }, [{ toolCalls: [{ name: 'echo', args: { value: 'a' } }] }], /tool-call limit/],
    [
      'budget',
      { budget: { maxTotalTokens: 10 } },
      [{ toolCalls: [{ name: 'echo', args: { value: 'a' } }], usage: { inputTokens: 20, outputTokens: 1 } }],
      /budget/,
    ],
    [
      'policy',
      { tools: { deny: ['echo'] }, onViolation: 'stop' as const },
      [{ toolCalls: [{ name: 'echo', args: { value: 'a' } }] }],
      /a policy check stopped it: .*not allowed/,
    ],
    [
      'length',
      { maxLengthContinuations: 0 },
      [{ text: 'A long answer that', finishReason: 'length' as const }],
      /cut off .*Partial answer: A long answer that/,
    ],
    ['content_filter', {}, [{ text: '', finishReason: 'content-filter' as const }], /content filter/],
    ['timeout', { runTimeoutMs: 30 }, [{ text: 'late', delayMs: 5_000 }], /ran out of time/],
  ])('%s fails the call with the reason and the sub-run id', async (reason, policy, script, detail) => {
    const agentRuntime = new AgentRuntime()
    const sub = new Agent({ name: 'sub', model: mockModel(script as MockTurn[]), tools: { echo }, policy, agentRuntime })
    const { output, message, subRun } = await failedSubRun(agentRuntime, leadOf(sub, agentRuntime).lead)
    expect(output.finishReason).toBe('stop')
    expect(subRun.finishReason).toBe(reason)
    expect(message).toContain(`agent "sub" ended with ${reason} (sub-run "${subRun.id}")`)
    expect(message).toMatch(detail)
  })
})

describe('asTool nesting', () => {
  it("a sub-agent's events are nested in the parent's stream with parentRunId", async () => {
    const { Agent: AgentClass } = await import('./agent.js')
    const { AgentRuntime: Runtime, mockModel: scripted } = await import('../index.js')
    const agentRuntime = new Runtime()
    const researcher = new AgentClass({ name: 'researcher', model: scripted([{ text: 'Paris has 2.1M people.' }]), agentRuntime })
    const lead = new AgentClass({
      name: 'lead',
      model: scripted([{ toolCalls: [{ name: 'researcher', args: { prompt: 'population of Paris?' } }] }, { text: 'About 2.1 million.' }]),
      tools: { researcher: researcher.asTool() },
      agentRuntime,
    })
    const stream = agentRuntime.stream({ agent: lead, input: 'How many people live in Paris?' })
    const events = []
    for await (const event of stream) events.push(event)
    const output = await stream.result
    const nested = events.filter((event) => event.runId !== output.runId)
    expect(nested.length).toBeGreaterThan(3)
    expect(nested.every((event) => event.parentRunId === output.runId)).toBe(true)
    expect(nested.some((event) => event.type === 'text.delta')).toBe(true)
    expect(nested.at(-1)).toMatchObject({ type: 'run.finished', text: 'Paris has 2.1M people.' })
    expect(output.text).toBe('About 2.1 million.')
  })
})
