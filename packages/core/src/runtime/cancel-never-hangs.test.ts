// A cancel or the run's timeout always ends the run, and a cancelled run starts no tool: a stream consumer that
// pauses without returning, a provider that ignores the abort signal, a durable journal write in flight, and a
// sub-agent streaming into a paused parent stream (found by a QA pass on the kernel).
import { expect, it } from 'vitest'
import { z } from 'zod'
import { Agent, AgentRuntime, defineTool, Extensions, memoryStores, mockModel, type AgentEvent, type LanguageModel, type StreamPart } from '../index.js'

const withTimeout = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, new Promise<'HUNG'>((resolve) => setTimeout(() => resolve('HUNG'), ms))])
/** Many short words: each delta is one text.delta event, enough to fill a paused consumer's channel. */
const manyWords = 'x '.repeat(5_000)

it('cancel() of a run held by back-pressure (the consumer paused without returning) ends it', async () => {
  const runtime = new AgentRuntime()
  const stream = runtime.stream({ agent: { name: 'a', model: mockModel([{ text: manyWords, chunkSize: 2 }]) }, input: 'hi' })
  const iterator = stream[Symbol.asyncIterator]()
  const runId = ((await iterator.next()).value as AgentEvent).runId
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect((await runtime.runs.getRun(runId))?.status).toBe('running')
  expect(await withTimeout(runtime.cancel(runId), 2_000)).toBe(true)
  expect(await withTimeout(stream.result, 2_000)).toMatchObject({ finishReason: 'cancelled' })
})

it('runTimeoutMs ends a run held by back-pressure', async () => {
  const runtime = new AgentRuntime(new Extensions(), { runTimeoutMs: 100 })
  const stream = runtime.stream({ agent: { name: 'a', model: mockModel([{ text: manyWords, chunkSize: 2 }]) }, input: 'hi' })
  await stream[Symbol.asyncIterator]().next()
  expect(await withTimeout(stream.result, 2_000)).toMatchObject({ finishReason: 'timeout' })
})

it('runTimeoutMs and cancel() end a run whose provider ignores the abort signal', async () => {
  const hung: LanguageModel = {
    specificationVersion: 'v1',
    provider: 'hung',
    modelId: 'm',
    capabilities: { contextWindow: 100_000, maxOutputTokens: 1000, tools: true, parallelTools: true, reasoning: false, structuredOutput: false },
    async *stream(): AsyncIterable<StreamPart> {
      yield { type: 'text-delta', delta: 'a ' }
      await new Promise(() => {})
    },
  }
  const timed = new AgentRuntime(new Extensions(), { runTimeoutMs: 100 })
  expect(await withTimeout(timed.run({ agent: { name: 'a', model: hung }, input: 'hi' }), 2_000)).toMatchObject({ finishReason: 'timeout' })
  const runtime = new AgentRuntime()
  const stream = runtime.stream({ agent: { name: 'a', model: hung }, input: 'hi' })
  for await (const event of stream) if (event.type === 'text.delta') void runtime.cancel(event.runId)
  const output = await withTimeout(stream.result, 2_000)
  expect(output).toMatchObject({ finishReason: 'cancelled' })
  // The orphaned provider stream adds nothing after the end.
  const log = await runtime.runs.listEvents((output as { runId: string }).runId)
  expect(log.at(-1)).toMatchObject({ type: 'run.finished', finishReason: 'cancelled' })
})

it('a tool never starts once its run is cancelled, even while its journal start was being written', async () => {
  const stores = memoryStores()
  const start = stores.executions.start.bind(stores.executions)
  // A durable store: the journal write takes a round trip, and the cancel lands during it.
  stores.executions.start = async (execution) => {
    await new Promise((resolve) => setTimeout(resolve, 100))
    return start(execution)
  }
  const effects: string[] = []
  const transfer = defineTool({ name: 'transfer', description: 't', inputSchema: z.object({}), execute: () => (effects.push('money moved'), 'ok') })
  const runtime = new AgentRuntime(new Extensions().setStores(stores))
  const stream = runtime.stream({
    agent: { name: 'a', model: mockModel([{ toolCalls: [{ name: 'transfer', args: {}, id: 'c1' }] }, { text: 'x' }]), tools: { transfer } },
    input: 'go',
  })
  for await (const event of stream) if (event.type === 'tool.call') setTimeout(() => void runtime.cancel(event.runId), 20)
  const output = await stream.result
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect(output.finishReason).toBe('cancelled')
  expect(effects).toEqual([])
  expect((await runtime.executions.get(`${output.runId}:1:c1`))?.status).toBe('cancelled')
})

it('a sub-agent (asTool) streaming into a paused parent stream is held by its back-pressure', async () => {
  const runtime = new AgentRuntime()
  const sub = new Agent({ name: 'writer', model: mockModel([{ text: 'w '.repeat(20_000), chunkSize: 2 }]) })
  const lead = new Agent({
    name: 'lead',
    model: mockModel([{ toolCalls: [{ name: 'writer', args: { prompt: 'write' } }] }, { text: 'done' }]),
    tools: { writer: sub.asTool() },
    agentRuntime: runtime,
  })
  const iterator = runtime.stream({ agent: lead, input: 'go' })[Symbol.asyncIterator]()
  await iterator.next()
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const subRun = (await runtime.runs.listRuns({ limit: 10 })).find((run) => (run.request.agent as { name?: string })?.name === 'writer')
  expect(subRun?.status).toBe('running')
  let events = 1
  while (!(await iterator.next()).done) events++
  expect(events).toBeGreaterThan(20_000)
  expect((await runtime.runs.getRun(subRun!.id))?.status).toBe('completed')
})
