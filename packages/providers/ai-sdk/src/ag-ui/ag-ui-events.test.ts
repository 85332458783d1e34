// AG-UI out: every event of real Spindle runs parsed by @ag-ui/core's own event schemas, event by event; an approval
// ends the run with an interrupt outcome, and a RunAgentInput with a resume entry continues it.
import { EventSchemas, RunAgentInputSchema } from '@ag-ui/core/schemas'
import { AgentRuntime, Extensions, defineTool, mockModel } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { fromRunAgentInput, toAgUiEvents, toAgUiResponse, type AgUiEvent } from './index.js'
import { approveAndResume } from '../index.js'

const add = defineTool({
  name: 'add',
  description: 'Adds',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
  needsApproval: true,
})

async function collect(events: AsyncIterable<AgUiEvent>): Promise<AgUiEvent[]> {
  const out: AgUiEvent[] = []
  for await (const event of events) {
    const parsed = EventSchemas.safeParse(event)
    expect(parsed.success, `${JSON.stringify(event)} is a valid AG-UI event: ${parsed.success ? '' : parsed.error.message}`).toBe(true)
    out.push(event)
  }
  return out
}

describe('AG-UI events', () => {
  it('maps a run with reasoning, text and a tool call awaiting approval, then resumes it from a RunAgentInput', async () => {
    const model = mockModel([
      { reasoning: 'Let me add.', text: 'Adding.', toolCalls: [{ id: 'call-1', name: 'add', args: { a: 2, b: 3 } }] },
      { text: 'It is 5.' },
    ])
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 4 })
    const agent = { name: 'calc', model, tools: { add } }
    const first = await collect(toAgUiEvents(runtime.stream({ agent, input: 'What is 2 + 3?' })))
    // Content deltas repeat (the mock model streams in chunks); the sequence of kinds is what matters.
    expect(first.map((event) => event.type).filter((type, index, all) => type !== all[index - 1])).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'REASONING_START',
      'REASONING_MESSAGE_START',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_END',
      'REASONING_END',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ])
    const finished = first.at(-1)!
    const outcome = finished.outcome as { type: string; interrupts: Array<{ id: string; toolCallId: string }> }
    expect(outcome.type).toBe('interrupt')
    expect(outcome.interrupts[0]?.toolCallId).toBe('call-1')
    const runInput = {
      threadId: finished.threadId as string,
      runId: 'client-run-2',
      messages: [
        { id: 'u1', role: 'user', content: 'What is 2 + 3?' },
        { id: 'a1', role: 'assistant', content: 'Adding.' },
      ],
      tools: [],
      context: [],
      resume: [{ interruptId: outcome.interrupts[0]!.id, status: 'resolved' as const, payload: { approved: true } }],
    }
    expect(RunAgentInputSchema.safeParse(runInput).success).toBe(true)
    const { sessionId, input, approvals } = fromRunAgentInput(runInput)
    expect(sessionId).toBe(finished.threadId)
    expect(input).toBeUndefined()
    const resumed = await collect(toAgUiEvents(approveAndResume(runtime, approvals, { agent })))
    expect(resumed.find((event) => event.type === 'TOOL_CALL_RESULT')).toMatchObject({ toolCallId: 'call-1', content: '{"sum":5}' })
    expect(
      resumed
        .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
        .map((event) => event.delta)
        .join(''),
    ).toBe('It is 5.')
    expect(resumed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } })
  })

  it('sends the events as SSE and takes new user messages from a RunAgentInput', async () => {
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 2 })
    const { sessionId, input } = fromRunAgentInput({
      threadId: 'thread-1',
      runId: 'r',
      messages: [{ id: 'u', role: 'user', content: 'Hi' }],
      tools: [],
      context: [],
    })
    expect(input).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }])
    const response = toAgUiResponse(runtime.stream({ sessionId, agent: { name: 'hi', model: mockModel([{ text: 'Hello.' }]) }, input: input! }))
    const events = (await response.text())
      .split('\n\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line.slice('data: '.length)) as AgUiEvent)
    for (const event of events) expect(EventSchemas.safeParse(event).success).toBe(true)
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: 'thread-1' })
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } })
    expect(() => fromRunAgentInput({ threadId: 't', runId: 'r', messages: [], tools: [], context: [] })).toThrow(/nothing to run/)
  })
})
