// ToolRuntime.executeCallsNow: a synchronous tool with a synchronous journal completes without an async round;
// anything asynchronous on the way (the tool, the journal's start or finish) hands back a promise from there on,
// with the same outcome, events and journal records.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createRuntimePolicy,
  defineTool,
  memoryStores,
  ToolRegistry,
  ToolRuntime,
  type AgentEventPayload,
  type ExecuteCallsInput,
  type ExecutionOutcome,
  type NewExecution,
} from '../index.js'

const add = defineTool({ name: 'add', description: 'adds', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b })
const addLater = defineTool({
  name: 'add_later',
  description: 'adds, later',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => a + b,
})
const broken = defineTool({
  name: 'broken',
  description: 'throws',
  inputSchema: z.object({}),
  execute: () => {
    throw new Error('no luck')
  },
})

/** A journal over the memory execution store whose start and finish are synchronous, or asynchronous when asked. */
function journal(asyncStart = false, asyncFinish = false) {
  const store = memoryStores().executions
  const records: string[] = []
  return {
    store,
    records,
    journal: {
      start(execution: NewExecution) {
        records.push(`start ${execution.callId}`)
        const record = { record: { ...execution, status: 'started' as const, attempt: 1, startedAt: 0 }, created: true }
        const started = store.start(execution)
        return asyncStart ? started : (void started, record)
      },
      finish(key: string, outcome: ExecutionOutcome) {
        records.push(`finish ${outcome.status}`)
        const finished = store.finish(key, outcome)
        return asyncFinish ? finished : undefined
      },
    },
  }
}

function input(tool: string, executions: ExecuteCallsInput['executions'], events: AgentEventPayload[]): ExecuteCallsInput {
  const runtime = new ToolRuntime(new ToolRegistry())
  return {
    runId: 'run',
    sessionId: 'session',
    step: 1,
    calls: [{ callId: 'c1', toolName: tool, args: { a: 2, b: 3 } }],
    scope: runtime.scope([
      [add.name, add],
      [addLater.name, addLater],
      [broken.name, broken],
    ]),
    policy: createRuntimePolicy(),
    executions,
    artifacts: memoryStores().artifacts,
    runtime: undefined,
    signal: new AbortController().signal,
    emit: (event) => void events.push(event),
  }
}

describe('ToolRuntime.executeCallsNow', () => {
  it('returns the outcome itself for a synchronous tool whose journal writes synchronously', () => {
    const events: AgentEventPayload[] = []
    const { journal: executions, records } = journal()
    const result = new ToolRuntime(new ToolRegistry()).executeCallsNow(input('add', executions, events))
    expect(result).not.toBeInstanceOf(Promise)
    expect(result).toEqual({ outcomes: [expect.objectContaining({ callId: 'c1', result: 5, isError: false, executed: true })], violation: undefined })
    expect(records).toEqual(['start c1', 'finish succeeded'])
    expect(events.map((event) => event.type)).toEqual(['tool.started', 'tool.result'])
  })

  it('hands back a promise with the same outcome when the tool, the journal start or the journal finish is asynchronous', async () => {
    for (const [tool, asyncStart, asyncFinish] of [
      ['add_later', false, false],
      ['add', true, false],
      ['add', false, true],
    ] as const) {
      const events: AgentEventPayload[] = []
      const { journal: executions, records, store } = journal(asyncStart, asyncFinish)
      const pending = new ToolRuntime(new ToolRegistry()).executeCallsNow(input(tool, executions, events))
      expect(pending, `${tool} start ${asyncStart} finish ${asyncFinish}`).toBeInstanceOf(Promise)
      const { outcomes } = await pending
      expect(outcomes).toEqual([expect.objectContaining({ result: 5, isError: false, executed: true })])
      expect(records).toEqual(['start c1', 'finish succeeded'])
      expect(events.map((event) => event.type)).toEqual(['tool.started', 'tool.result'])
      expect((await store.get('run:1:c1'))?.status).toBe('succeeded')
    }
  })

  it('a synchronous tool that throws gives the model the error and the journal a failed record, like an asynchronous one', async () => {
    const events: AgentEventPayload[] = []
    const { journal: executions, records, store } = journal()
    const call = input('broken', executions, events)
    call.calls = [{ callId: 'c1', toolName: 'broken', args: {} }]
    const { outcomes } = await new ToolRuntime(new ToolRegistry()).executeCallsNow(call)
    expect(outcomes[0]).toMatchObject({ isError: true, executed: true, error: { code: 'tool', message: 'Tool "broken" failed: no luck' } })
    expect(records).toEqual(['start c1', 'finish failed'])
    expect((await store.get('run:1:c1'))?.error).toEqual({ code: 'tool', message: 'no luck' })
    expect(events.map((event) => event.type)).toEqual(['tool.started', 'tool.error'])
  })

  it('a synchronous failure of the journal start is thrown by executeCallsNow and rejects executeCalls, before the tool runs', async () => {
    let ran = false
    const watched = defineTool({
      name: 'add',
      description: 'adds',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => ((ran = true), a + b),
    })
    const failing: ExecuteCallsInput['executions'] = {
      start: () => {
        throw new Error('journal down')
      },
      finish: () => undefined,
    }
    const call = input('add', failing, [])
    call.scope = new ToolRuntime(new ToolRegistry()).scope([[watched.name, watched]])
    expect(() => new ToolRuntime(new ToolRegistry()).executeCallsNow(call)).toThrow('journal down')
    await expect(new ToolRuntime(new ToolRegistry()).executeCalls(call)).rejects.toThrow('journal down')
    expect(ran).toBe(false)
  })
})
