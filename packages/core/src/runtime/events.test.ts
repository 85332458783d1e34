// Events: a lossless per-run stream, a bounded broadcast with `lagged`, and the authoritative event log.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Agent, AgentRuntime, defineTool, mockModel, type AgentEvent, type LaggedEvent } from '../index.js'

const echo = defineTool({ name: 'echo', description: 'e', inputSchema: z.object({ v: z.number() }), execute: ({ v }) => v, idempotent: true })

describe('events', () => {
  it('stream() is lossless: seq is gap-free from 1, every event carries runId, sessionId and a timestamp', async () => {
    const model = mockModel([{ toolCalls: [{ name: 'echo', args: { v: 1 } }] }, { text: 'a '.repeat(500), chunkSize: 2 }])
    const runtime = new AgentRuntime()
    const stream = runtime.stream({ agent: { name: 'a', model, tools: { echo } }, input: 'x' })
    const events: AgentEvent[] = []
    for await (const event of stream) events.push(event)
    const output = await stream.result
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1))
    expect(events.filter((event) => event.type === 'text.delta')).toHaveLength(500)
    expect(events.every((event) => event.runId === output.runId && event.sessionId === output.sessionId && event.timestamp > 0)).toBe(true)
    expect(events[0]?.type).toBe('run.started')
    expect(events.at(-1)?.type).toBe('run.finished')
    const order = events.map((event) => event.type).filter((type) => type !== 'text.delta' && type !== 'snapshot.saved')
    expect(order).toEqual([
      'run.started',
      'step.started',
      'tool.call',
      'tool.started',
      'tool.result',
      'step.finished',
      'step.started',
      'step.finished',
      'run.finished',
    ])
  })

  it('the logs of a run and of its sub-agent hold exactly the events streamed: reasoning, text across steps, nested deltas', async () => {
    const runtime = new AgentRuntime()
    const writer = new Agent({
      name: 'writer',
      model: mockModel([{ reasoning: 'plan the draft '.repeat(40), text: 'draft words '.repeat(200), chunkSize: 5 }]),
    })
    const model = mockModel([
      { reasoning: 'delegate', text: 'asking the writer ', toolCalls: [{ name: 'writer', args: { prompt: 'write' } }], chunkSize: 3 },
      { text: 'the writer answered. '.repeat(30), chunkSize: 4 },
    ])
    const lead = new Agent({ name: 'lead', model, tools: { writer: writer.asTool() }, agentRuntime: runtime })
    const stream = runtime.stream({ agent: lead, input: 'go' })
    const live: AgentEvent[] = []
    for await (const event of stream) live.push(event)
    const { runId } = await stream.result
    const own = live.filter((event) => event.runId === runId)
    const nested = live.filter((event) => event.runId !== runId)
    expect(nested.filter((event) => event.type === 'text.delta').length).toBeGreaterThan(300)
    expect(nested.every((event) => event.parentRunId === runId)).toBe(true)
    expect(await runtime.runs.listEvents(runId)).toStrictEqual(own)
    expect(await runtime.runs.listEvents(nested[0]!.runId)).toStrictEqual(nested)
    expect(await runtime.runs.listEvents(runId, { after: 10, limit: 25 })).toStrictEqual(own.slice(10, 35))
  })

  it('the run event log holds every event, readable after a sequence number', async () => {
    const runtime = new AgentRuntime()
    const stream = runtime.stream({ agent: { name: 'a', model: mockModel([{ text: 'hello world', chunkSize: 2 }]) }, input: 'x' })
    const live: AgentEvent[] = []
    for await (const event of stream) live.push(event)
    const { runId } = await stream.result
    expect(await runtime.runs.listEvents(runId)).toStrictEqual(live)
    const tail = await runtime.runs.listEvents(runId, { after: 3 })
    expect(tail.map((event) => event.seq)).toEqual(live.slice(3).map((event) => event.seq))
  })

  it('a slow subscriber loses the oldest events, gets `lagged` with the count, and never slows the run', async () => {
    const runtime = new AgentRuntime()
    const controller = new AbortController()
    const subscription = runtime.subscribe({ capacity: 16, signal: controller.signal })[Symbol.asyncIterator]()
    const fast = runtime.subscribe({ capacity: 10_000 })[Symbol.asyncIterator]()
    const output = await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'z '.repeat(300), chunkSize: 2 }]) }, input: 'x' })
    const first = (await subscription.next()).value as LaggedEvent
    expect(first.type).toBe('lagged')
    const total = (await runtime.runs.listEvents(output.runId)).length
    expect(first.missed).toBe(total - 16)
    const rest: AgentEvent[] = []
    for (let i = 0; i < 16; i++) rest.push((await subscription.next()).value as AgentEvent)
    expect(rest.map((event) => event.seq)).toEqual(Array.from({ length: 16 }, (_, index) => total - 15 + index))
    controller.abort()
    expect((await subscription.next()).done).toBe(true)
    const fastEvents: AgentEvent[] = []
    for (let i = 0; i < total; i++) fastEvents.push((await fast.next()).value as AgentEvent)
    expect(fastEvents.map((event) => event.seq)).toEqual(Array.from({ length: total }, (_, index) => index + 1))
    await fast.return?.()
  })

  it('subscribe filters by run and event type; a lagged client catches up from the log by seq', async () => {
    const runtime = new AgentRuntime()
    const seen: AgentEvent[] = []
    const iterator = runtime.subscribe({ types: ['run.finished', 'tool.result'] })[Symbol.asyncIterator]()
    const output = await runtime.run({
      agent: { name: 'a', model: mockModel([{ toolCalls: [{ name: 'echo', args: { v: 7 } }] }, { text: 'ok' }]), tools: { echo } },
      input: 'x',
    })
    seen.push((await iterator.next()).value as AgentEvent, (await iterator.next()).value as AgentEvent)
    await iterator.return?.()
    expect(seen.map((event) => event.type)).toEqual(['tool.result', 'run.finished'])
    const fromLog = await runtime.runs.listEvents(output.runId, { after: seen[0]!.seq })
    expect(fromLog.at(-1)).toEqual(seen[1])
  })

  it('breaking out of a stream cancels the run (the consumer abandoned it)', async () => {
    const runtime = new AgentRuntime()
    const stream = runtime.stream({ agent: { name: 'a', model: mockModel([{ text: 'q '.repeat(100), chunkSize: 2, delayMs: 500 }]) }, input: 'x' })
    for await (const event of stream) if (event.type === 'text.delta') break
    const output = await stream.result
    expect(output.finishReason).toBe('cancelled')
    const log = await runtime.runs.listEvents(output.runId)
    expect(log.filter((event) => event.type === 'run.finished')).toHaveLength(1)
  })

  it('a slow stream consumer applies back-pressure instead of buffering without bound', async () => {
    const runtime = new AgentRuntime()
    const model = mockModel([{ text: 'w '.repeat(5_000), chunkSize: 2 }])
    const stream = runtime.stream({ agent: { name: 'a', model }, input: 'x' })
    const iterator = stream[Symbol.asyncIterator]()
    await iterator.next()
    await new Promise((resolve) => setTimeout(resolve, 50))
    // The producer stopped at the high-water mark: the run has not finished while nobody reads.
    const runs = await runtime.runs.listRuns()
    expect(runs[0]?.status).toBe('running')
    let count = 1
    while (!(await iterator.next()).done) count++
    expect((await stream.result).text).toHaveLength(10_000)
    expect(count).toBeGreaterThan(5_000)
  })
})
