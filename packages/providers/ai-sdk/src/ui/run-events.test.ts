// runEvents catching a client up: mid-step (the step's first events are not logged yet, only delivered live) and
// after a suspension the run was resumed from (its log holds a `run.finished` awaiting approval before the rest).
import { AgentRuntime, Extensions, defineTool, mockModel, type AgentEvent } from '@spindle/core'
import { readUIMessageStream, type UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { runEvents, toUIMessageStream, type UIMessageChunk } from '../index.js'

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of events) items.push(item)
  return items
}

async function finalMessage(events: AsyncIterable<AgentEvent>): Promise<UIMessage> {
  let last: UIMessage | undefined
  const chunks = toUIMessageStream(events) as ReadableStream<UIMessageChunk> as ReadableStream<any>
  for await (const message of readUIMessageStream({ stream: chunks, terminateOnError: true })) last = message
  return last!
}

describe('runEvents', () => {
  it('a client connecting mid-step gets every event once, in order, though the step is not logged yet', async () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve'
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 2 })
    const stream = runtime.stream({ agent: { name: 'slow', model: mockModel([{ text, chunkSize: 4, delayMs: 400 }]) }, input: 'Talk' })
    const live: AgentEvent[] = []
    let reconnect: Promise<AgentEvent[]> | undefined
    for await (const event of stream) {
      live.push(event)
      // Connect after the third delta: the log has nothing of this step yet.
      if (!reconnect && live.filter((item) => item.type === 'text.delta').length === 3) {
        expect(await runtime.runs.listEvents(event.runId)).not.toContainEqual(expect.objectContaining({ type: 'text.delta' }))
        reconnect = collect(runEvents(runtime, event.runId, { gapPollMs: 10 }))
      }
    }
    const caughtUp = await reconnect!
    expect(caughtUp.map((event) => event.seq)).toEqual(live.map((event) => event.seq))
    const deltas = caughtUp.flatMap((event) => (event.type === 'text.delta' ? [event.delta] : []))
    expect(deltas.join('')).toBe(text)
  })

  it('catches up a run resumed after its approval: the events after the suspension too, as one message', async () => {
    const send = defineTool({
      name: 'send',
      description: 'Sends',
      inputSchema: z.object({ to: z.string() }),
      execute: ({ to }) => ({ sent: to }),
      needsApproval: true,
    })
    const model = mockModel([{ text: 'Sending.', toolCalls: [{ id: 'call-1', name: 'send', args: { to: 'ada' } }] }, { text: 'Sent to ada.' }])
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 4 })
    const agent = { name: 'mailer', model, tools: { send } }
    const suspended = await runtime.run({ agent, input: 'Send it' })
    expect(suspended.finishReason).toBe('awaiting_approval')
    await runtime.approve(suspended.runId, 'call-1', true)
    await runtime.resume(suspended.runId, { agent })
    const events = await collect(runEvents(runtime, suspended.runId))
    expect(events.filter((event) => event.type === 'run.finished').map((event) => event.type === 'run.finished' && event.finishReason)).toEqual([
      'awaiting_approval',
      'stop',
    ])
    const message = await finalMessage(runEvents(runtime, suspended.runId))
    expect(message.parts.find((part) => part.type === 'tool-send')).toMatchObject({ state: 'output-available', output: { sent: 'ada' } })
    expect(message.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text)).toEqual(['Sending.', 'Sent to ada.'])
    expect(message.metadata).toMatchObject({ finishReason: 'stop' })
  })
})
