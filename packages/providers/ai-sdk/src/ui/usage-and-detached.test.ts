// The usage in the message metadata of a run suspended for approval and resumed (its first step finishes twice in the
// log, each step.finished carrying the run's running total), and streamDetached: a response whose client went away
// leaves its run going on, and a reconnecting client catches up from the log.
import { AgentRuntime, Extensions, defineTool, mockModel, type AgentEvent } from '@spindle/core'
import { readUIMessageStream, type UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { runEvents, streamDetached, toUIMessageStream, toUIMessageStreamResponse, type SpindleMessageMetadata, type UIMessageChunk } from '../index.js'

async function finalMessage(events: AsyncIterable<AgentEvent>): Promise<UIMessage> {
  let last: UIMessage | undefined
  const chunks = toUIMessageStream(events) as ReadableStream<UIMessageChunk> as ReadableStream<any>
  for await (const message of readUIMessageStream({ stream: chunks, terminateOnError: true })) last = message
  return last!
}

describe('usage in the message metadata', () => {
  it('a run resumed after its approval: the run’s usage, its first step counted once', async () => {
    const send = defineTool({
      name: 'send',
      description: 'Sends',
      inputSchema: z.object({ to: z.string() }),
      execute: ({ to }) => ({ sent: to }),
      needsApproval: true,
    })
    const model = mockModel([
      { text: 'Sending.', toolCalls: [{ id: 'call-1', name: 'send', args: { to: 'ada' } }], usage: { inputTokens: 70, outputTokens: 12 } },
      { text: 'Sent to ada.', usage: { inputTokens: 90, outputTokens: 3 } },
    ])
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 4 })
    const agent = { name: 'mailer', model, tools: { send } }
    const suspended = await runtime.run({ agent, input: 'Send it' })
    await runtime.approve(suspended.runId, 'call-1', true)
    const output = await runtime.resume(suspended.runId, { agent })
    expect(output.usage).toMatchObject({ inputTokens: 160, outputTokens: 15 })
    const log = await runtime.runs.listEvents(suspended.runId)
    // Core's log: step 1 finishes at the suspension and again once the resume ran its tools.
    expect(log.filter((event) => event.type === 'step.finished' && event.step === 1)).toHaveLength(2)
    const message = await finalMessage(runEvents(runtime, suspended.runId))
    expect((message.metadata as SpindleMessageMetadata).usage).toEqual({ inputTokens: 160, outputTokens: 15, totalTokens: 175 })
  })

  it('a run of two steps without approval: the run’s total, not the sum of the running totals', async () => {
    const echo = defineTool({ name: 'echo', description: 'Echoes', inputSchema: z.object({}), execute: () => 'ok' })
    const model = mockModel([
      { toolCalls: [{ name: 'echo', args: {} }], usage: { inputTokens: 10, outputTokens: 2 } },
      { text: 'Done.', usage: { inputTokens: 20, outputTokens: 4 } },
    ])
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 4 })
    const message = await finalMessage(runtime.stream({ agent: { name: 'echoer', model, tools: { echo } }, input: 'Go' }))
    expect((message.metadata as SpindleMessageMetadata).usage).toEqual({ inputTokens: 30, outputTokens: 6, totalTokens: 36 })
  })
})

describe('streamDetached', () => {
  const slowText = 'one two three four five six seven eight nine ten'

  it('the client goes away mid-answer: the run goes on to its end, and a reconnecting client gets the whole answer', async () => {
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 2 })
    const agent = { name: 'slow', model: mockModel([{ text: slowText, chunkSize: 4, delayMs: 20 }]) }
    const stream = streamDetached(runtime, { agent, input: 'Talk' })
    const response = toUIMessageStreamResponse(stream)
    const reader = response.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    const { runId } = JSON.parse(first.slice(first.indexOf('{'), first.indexOf('\n'))).messageMetadata as SpindleMessageMetadata
    await reader.cancel() // the browser reloads
    const output = await stream.result
    expect(output.finishReason).toBe('stop')
    expect(output.text).toBe(slowText)
    expect((await runtime.runs.getRun(runId))?.status).toBe('completed')
    const message = await finalMessage(runEvents(runtime, runId))
    expect(message.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text)).toEqual([slowText])
  })

  it('runtime.stream, by contrast, cancels the run when its reader stops', async () => {
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 2 })
    const stream = runtime.stream({ agent: { name: 'slow', model: mockModel([{ text: slowText, chunkSize: 4, delayMs: 20 }]) }, input: 'Talk' })
    for await (const event of stream) if (event.type === 'text.delta') break
    expect((await stream.result).finishReason).toBe('cancelled')
  })

  it('read to the end, it is the run’s whole stream', async () => {
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 2 })
    const stream = streamDetached(runtime, { agent: { name: 'quick', model: mockModel([{ text: 'Hello.' }]) }, input: 'Hi' })
    const events: AgentEvent[] = []
    for await (const event of stream) events.push(event)
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1))
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', finishReason: 'stop', text: 'Hello.' })
  })
})
