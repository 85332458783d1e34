// The UI message stream of real Spindle runs, checked by the AI SDK's own parser (readUIMessageStream) and its chunk
// schema, chunk by chunk and as the final UIMessage; approval answered in the UI resumes the run; reconnect catches up.
import { AgentRuntime, Extensions, defineTool, mockModel, type AgentEvent } from '@spindle/core'
import { readUIMessageStream, uiMessageChunkSchema, type UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { approveAndResume, fromUIMessages, runEvents, toUIMessageStream, toUIMessageStreamResponse, type UIMessageChunk } from '../index.js'

const add = defineTool({
  name: 'add',
  description: 'Adds',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
  needsApproval: true,
})

function setup() {
  const model = mockModel([
    { reasoning: 'Let me add.', text: 'Adding.', toolCalls: [{ id: 'call-1', name: 'add', args: { a: 2, b: 3 } }] },
    { text: 'It is 5.' },
  ])
  const runtime = new AgentRuntime(new Extensions(), { maxSteps: 4 })
  const agent = { name: 'calc', model, tools: { add } }
  return { runtime, agent }
}

async function collect(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = []
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk)
  return chunks
}

function streamOf(chunks: UIMessageChunk[]): ReadableStream<any> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
}

async function finalMessage(chunks: UIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  let last: UIMessage | undefined
  const errors: unknown[] = []
  for await (const current of readUIMessageStream({
    stream: streamOf(chunks),
    ...(message && { message }),
    onError: (error) => errors.push(error),
    terminateOnError: true,
  }))
    last = current
  expect(errors).toEqual([])
  return last!
}

async function expectValidChunks(chunks: UIMessageChunk[]): Promise<void> {
  const schema = uiMessageChunkSchema()
  for (const chunk of chunks) {
    const result = await schema.validate!(chunk)
    expect(result.success, `chunk ${JSON.stringify(chunk)} is a valid UIMessageChunk`).toBe(true)
  }
}

describe('toUIMessageStream', () => {
  it('streams a run into chunks the AI SDK parser accepts, ending on the approval request', async () => {
    const { runtime, agent } = setup()
    const chunks = await collect(toUIMessageStream(runtime.stream({ agent, input: 'What is 2 + 3?' })))
    await expectValidChunks(chunks)
    expect(chunks.map((chunk) => chunk.type)).toEqual(
      expect.arrayContaining([
        'start',
        'start-step',
        'reasoning-start',
        'reasoning-delta',
        'reasoning-end',
        'text-start',
        'text-delta',
        'text-end',
        'tool-input-start',
        'tool-input-delta',
        'tool-input-available',
        'tool-approval-request',
        'finish-step',
        'finish',
      ]),
    )
    const message = await finalMessage(chunks)
    expect(message.role).toBe('assistant')
    expect(message.metadata).toMatchObject({ runId: expect.any(String), sessionId: expect.any(String), finishReason: 'awaiting_approval' })
    expect(message.parts.find((part) => part.type === 'reasoning')).toMatchObject({ text: 'Let me add.', state: 'done' })
    expect(message.parts.find((part) => part.type === 'text')).toMatchObject({ text: 'Adding.', state: 'done' })
    expect(message.parts.find((part) => part.type === 'tool-add')).toMatchObject({
      toolCallId: 'call-1',
      state: 'approval-requested',
      input: { a: 2, b: 3 },
      approval: { id: 'call-1' },
    })
  })

  it('resumes the suspended run when the approval is answered in the UI, and the message completes', async () => {
    const { runtime, agent } = setup()
    const firstChunks = await collect(toUIMessageStream(runtime.stream({ agent, input: 'What is 2 + 3?' })))
    const assistant = await finalMessage(firstChunks)
    // What useChat sends after addToolApprovalResponse({ id, approved: true }).
    const answered: UIMessage = {
      ...assistant,
      parts: assistant.parts.map((part) =>
        part.type === 'tool-add' ? ({ ...part, state: 'approval-responded', approval: { id: 'call-1', approved: true } } as typeof part) : part,
      ),
    }
    const body = { id: 'chat-1', messages: [{ id: 'u1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'What is 2 + 3?' }] }, answered] }
    const { input, approvals } = fromUIMessages(body)
    expect(input).toBeUndefined()
    expect(approvals).toEqual([{ runId: (assistant.metadata as { runId: string }).runId, callId: 'call-1', approved: true }])
    const resumedChunks = await collect(toUIMessageStream(approveAndResume(runtime, approvals, { agent })))
    await expectValidChunks(resumedChunks)
    const completed = await finalMessage(resumedChunks, answered)
    expect(completed.parts.find((part) => part.type === 'tool-add')).toMatchObject({ state: 'output-available', output: { sum: 5 } })
    expect(completed.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text)).toEqual(['Adding.', 'It is 5.'])
    expect(completed.metadata).toMatchObject({ finishReason: 'stop' })
  })

  it('answers with an SSE Response that carries the protocol header and [DONE]', async () => {
    const model = mockModel([{ text: 'Hello there.' }])
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 2 })
    const response = toUIMessageStreamResponse(runtime.stream({ agent: { name: 'hi', model }, input: 'Hi' }))
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1')
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const lines = (await response.text()).split('\n\n').filter(Boolean)
    expect(lines.at(-1)).toBe('data: [DONE]')
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line.slice('data: '.length)) as UIMessageChunk)
    const message = await finalMessage(chunks)
    expect(
      message.parts
        .filter((part) => part.type === 'text')
        .map((part) => (part as { text: string }).text)
        .join(''),
    ).toBe('Hello there.')
  })

  it('a reconnecting client catches up from the run log: the same message as the live stream', async () => {
    const { runtime, agent } = setup()
    const live: AgentEvent[] = []
    for await (const event of runtime.stream({ agent, input: 'What is 2 + 3?' })) live.push(event)
    const runId = live[0]!.runId
    const replayed: AgentEvent[] = []
    for await (const event of runEvents(runtime, runId)) replayed.push(event)
    expect(replayed.map((event) => event.seq)).toEqual(live.map((event) => event.seq))
    const fromLive = await finalMessage(await collect(toUIMessageStream(asIterable(live))))
    const fromLog = await finalMessage(await collect(toUIMessageStream(runEvents(runtime, runId))))
    expect(fromLog).toEqual(fromLive)
  })

  it('refuses a request with nothing to run', () => {
    expect(() => fromUIMessages({ messages: [] })).toThrow(/nothing to run/)
    expect(fromUIMessages({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] }).input).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
    ])
  })
})

async function* asIterable<T>(items: T[]): AsyncGenerator<T> {
  yield* items
}
