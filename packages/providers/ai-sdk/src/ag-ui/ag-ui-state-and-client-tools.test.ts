// AG-UI state and client tools, driven the way an AG-UI client drives an agent: each RunAgentInput checked by
// @ag-ui/core's RunAgentInputSchema, each emitted event by its EventSchemas, event by event; the state deltas applied
// with fast-json-patch (what @ag-ui/client applies them with) must give the state the run's store ended with.
import { EventSchemas, RunAgentInputSchema } from '@ag-ui/core/schemas'
import { AgentRuntime, Extensions, defineTool, mockModel, type ToolResultPart } from '@spindle/core'
import { applyPatch, type Operation } from 'fast-json-patch'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { approveAndResume } from '../index.js'
import { AgUiStateRecorder, diffJson, fromRunAgentInput, interruptIdSeparator, toAgUiEvents, type AgUiEvent, type RunAgentInputLike } from './index.js'

async function collect(events: AsyncIterable<AgUiEvent>): Promise<AgUiEvent[]> {
  const out: AgUiEvent[] = []
  for await (const event of events) {
    const parsed = EventSchemas.safeParse(event)
    expect(parsed.success, `${JSON.stringify(event)} is a valid AG-UI event: ${parsed.success ? '' : parsed.error.message}`).toBe(true)
    out.push(event)
  }
  return out
}

function checkedInput(input: RunAgentInputLike): RunAgentInputLike {
  const parsed = RunAgentInputSchema.safeParse(input)
  expect(parsed.success, parsed.success ? '' : parsed.error.message).toBe(true)
  return input
}

/** The client's view of the state: the snapshot, then each delta applied in order. */
function clientState(events: AgUiEvent[]): unknown {
  let state: unknown
  for (const event of events) {
    if (event.type === 'STATE_SNAPSHOT') state = structuredClone(event.snapshot)
    if (event.type === 'STATE_DELTA') state = applyPatch(state, event.delta as Operation[], true, false).newDocument
  }
  return state
}

const addTodo = defineTool({
  name: 'addTodo',
  description: 'Adds a todo',
  inputSchema: z.object({ title: z.string() }),
  execute: ({ title }, { runtime }) => {
    const todos = (runtime?.get('todos') as string[] | undefined) ?? []
    runtime?.set('todos', [...todos, title])
    runtime?.set('lastAdded', { title, at: todos.length })
    return { added: title }
  },
})

describe('AG-UI state and client tools', () => {
  it('sends the client state as STATE_SNAPSHOT and the changes a tool makes to the run store as JSON Patch deltas', async () => {
    const recorder = new AgUiStateRecorder()
    const runtime = new AgentRuntime(new Extensions().addObserver(recorder), { maxSteps: 4 })
    const model = mockModel([
      { toolCalls: [{ id: 'c1', name: 'addTodo', args: { title: 'write tests' } }] },
      { toolCalls: [{ id: 'c2', name: 'addTodo', args: { title: 'ship' } }] },
      { text: 'Added both.' },
    ])
    const run = fromRunAgentInput(
      checkedInput({
        threadId: 'thread-state',
        runId: 'r1',
        state: { todos: ['buy milk'], owner: 'ada' },
        messages: [{ id: 'u1', role: 'user', content: 'Add two todos' }],
        tools: [],
        context: [],
      }),
    )
    const events = await collect(
      toAgUiEvents(
        runtime.stream({
          sessionId: run.sessionId,
          agent: run.agentWith({ name: 'todo', model, tools: { addTodo } }),
          input: run.input!,
          runtime: run.runtimeStore(),
        }),
        { state: recorder.stateAt },
      ),
    )
    expect(events.slice(0, 2).map((event) => event.type)).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT'])
    expect(events[1]!.snapshot).toEqual({ todos: ['buy milk'], owner: 'ada' })
    const deltas = events.filter((event) => event.type === 'STATE_DELTA')
    expect(deltas.map((event) => event.delta)).toEqual([
      [
        { op: 'add', path: '/todos/1', value: 'write tests' },
        { op: 'add', path: '/lastAdded', value: { title: 'write tests', at: 1 } },
      ],
      [
        { op: 'add', path: '/todos/2', value: 'ship' },
        { op: 'replace', path: '/lastAdded/title', value: 'ship' },
        { op: 'replace', path: '/lastAdded/at', value: 2 },
      ],
    ])
    // Each delta follows the result of the call that made it.
    const firstDelta = events.indexOf(deltas[0]!)
    expect(events[firstDelta - 1]).toMatchObject({ type: 'TOOL_CALL_RESULT', toolCallId: 'c1' })
    expect(clientState(events)).toEqual({ todos: ['buy milk', 'write tests', 'ship'], owner: 'ada', lastAdded: { title: 'ship', at: 2 } })
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } })
  })

  it('offers the client tools to the model, ends the run at their call and resumes it from the client tool message', async () => {
    const recorder = new AgUiStateRecorder({ keys: ['color'] })
    const runtime = new AgentRuntime(new Extensions().addObserver(recorder), { maxSteps: 4 })
    const model = mockModel([{ text: 'Let me ask.', toolCalls: [{ id: 'pick-1', name: 'pickColor', args: { palette: 'warm' } }] }, { text: 'You picked red.' }])
    const tools = [
      {
        name: 'pickColor',
        description: 'Asks the user to pick a colour',
        parameters: { type: 'object', properties: { palette: { type: 'string' } }, required: ['palette'] },
      },
    ]
    const assistant = { name: 'painter', instructions: 'Paint.', model }
    const first = fromRunAgentInput(
      checkedInput({
        threadId: 'thread-tools',
        runId: 'r1',
        state: { color: 'none' },
        messages: [{ id: 'u1', role: 'user', content: 'Pick a colour' }],
        tools,
        context: [{ description: 'Page', value: 'settings' }],
      }),
    )
    const agent = first.agentWith(assistant)
    const firstEvents = await collect(
      toAgUiEvents(runtime.stream({ sessionId: first.sessionId, agent, input: first.input!, runtime: first.runtimeStore() }), {
        state: recorder.stateAt,
        clientTools: Object.keys(first.tools),
      }),
    )
    // The model saw the client's tool (its JSON Schema) and the client's context in its instructions.
    expect(model.calls[0]!.tools?.find((tool) => tool.name === 'pickColor')?.inputSchema).toEqual(tools[0]!.parameters)
    expect(model.calls[0]!.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Page: settings') })
    const start = firstEvents.find((event) => event.type === 'TOOL_CALL_START')!
    expect(start).toMatchObject({ toolCallName: 'pickColor' })
    const toolCallId = start.toolCallId as string
    expect(toolCallId.endsWith(`${interruptIdSeparator}pick-1`)).toBe(true)
    expect(firstEvents.some((event) => event.type === 'TOOL_CALL_RESULT')).toBe(false)
    const finished = firstEvents.at(-1)!
    expect(finished).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: { finishReason: 'awaiting_approval' } })

    // The client ran its tool: its next RunAgentInput carries the call and the tool message with the result.
    const second = fromRunAgentInput(
      checkedInput({
        threadId: 'thread-tools',
        runId: 'r2',
        state: { color: 'red' },
        messages: [
          { id: 'u1', role: 'user', content: 'Pick a colour' },
          {
            id: 'a1',
            role: 'assistant',
            content: 'Let me ask.',
            toolCalls: [{ id: toolCallId, type: 'function', function: { name: 'pickColor', arguments: '{"palette":"warm"}' } }],
          },
          { id: 't1', role: 'tool', toolCallId, content: '{"color":"red"}' },
        ],
        tools,
        context: [],
      }),
    )
    expect(second.input).toBeUndefined()
    expect(second.approvals).toEqual([{ runId: finished.runId, callId: 'pick-1', approved: true }])
    const resumed = await collect(
      toAgUiEvents(approveAndResume(runtime, second.approvals, { agent: second.agentWith(assistant), runtime: second.runtimeStore() }), {
        state: recorder.stateAt,
        clientTools: Object.keys(second.tools),
      }),
    )
    expect(resumed[1]).toMatchObject({ type: 'STATE_SNAPSHOT', snapshot: { color: 'red' } })
    expect(
      resumed
        .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
        .map((event) => event.delta)
        .join(''),
    ).toBe('You picked red.')
    expect(resumed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: { finishReason: 'stop' } })
    // The client's result is what the model got back for the call.
    const toolMessage = model.calls[1]!.messages.find((message) => message.role === 'tool')!
    expect((toolMessage.content as ToolResultPart[])[0]).toMatchObject({ toolCallId: 'pick-1', result: { color: 'red' } })
  })

  it('refuses a tool message for a call no Spindle run issued and a new message sent before an interrupt is answered', () => {
    const base = { threadId: 't', runId: 'r', tools: [], context: [] }
    expect(() => fromRunAgentInput({ ...base, messages: [{ id: 'x', role: 'tool', toolCallId: 'foreign', content: '1' }] })).toThrow(/nothing to run/)
    expect(() =>
      fromRunAgentInput({
        ...base,
        messages: [
          { id: 'x', role: 'tool', toolCallId: 'run-1::c', content: '1' },
          { id: 'u', role: 'user', content: 'Hi' },
        ],
      }),
    ).toThrow(/answer the interrupted run/)
  })

  it('diffs JSON into RFC 6902 operations that fast-json-patch applies back to the target', () => {
    const cases: Array<[unknown, unknown]> = [
      [{}, { a: 1 }],
      [
        { a: [1, 2, 3], b: { c: 'x' } },
        { a: [1], b: { d: null } },
      ],
      [{ list: [{ id: 1 }] }, { list: [{ id: 1, done: true }, { id: 2 }] }],
      [
        { 'a/b': 1, 'c~d': [] },
        { 'a/b': 2, 'c~d': ['x'] },
      ],
      [{ kind: [1] }, { kind: 'scalar' }],
    ]
    for (const [before, after] of cases) {
      const patch = diffJson(before, after)
      expect(applyPatch(structuredClone(before), patch as Operation[], true, false).newDocument).toEqual(after)
    }
    expect(diffJson({ a: 1 }, { a: 1 })).toEqual([])
    expect(diffJson({ 'a/b': 1 }, { 'a/b': 2 })).toEqual([{ op: 'replace', path: '/a~1b', value: 2 }])
  })
})
