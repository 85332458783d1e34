// A queued run whose end the store refused (an outage at its last commit) fails its job, so that the queue runs
// it again; the retry's resume records the end. Without that the job completed and the run stayed `running`.
import { expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, eventLogProblems, Extensions, InProcessRunQueue, memoryStores, mockModel, type StoreBatch, StoreError } from '../index.js'

const add = defineTool({ name: 'add', description: 'adds', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b })

it('work(): a run whose record could not be updated at its end fails its job; resuming it records the end', async () => {
  const stores = memoryStores()
  const inner = (stores.sessions as { batch?: StoreBatch }).batch!
  let outage = false
  let refused = 0
  const batch: StoreBatch = {
    specificationVersion: 'v1',
    stores: inner.stores,
    write: (writes) => {
      // The outage refuses every commit that would update the run record (the run's end, and its failure path).
      if (outage && writes.some((write) => write.type === 'run.update')) {
        refused++
        return Promise.reject(new StoreError('[test] the database is unreachable'))
      }
      return inner.write(writes)
    },
  }
  for (const kind of ['sessions', 'runs', 'executions', 'snapshots'] as const) (stores[kind] as { batch?: StoreBatch }).batch = batch
  const runtime = new AgentRuntime(new Extensions().setStores(stores))
  const queue = runtime.queue as InProcessRunQueue
  expect(queue).toBeInstanceOf(InProcessRunQueue)
  const model = mockModel(async (_request, index) => {
    if (index === 1) outage = true // the final answer's commit meets the outage
    return index === 0 ? { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] } : { text: 'done' }
  })
  const agent = { name: 'a', model, tools: { add } }
  const { runId } = await runtime.enqueue({ agent, input: 'x' })
  const controller = new AbortController()
  const working = runtime.work({ signal: controller.signal })
  for (let waited = 0; queue.errors.length === 0 && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10))
  controller.abort()
  await working
  expect(refused).toBeGreaterThan(0)
  expect(queue.errors).toHaveLength(1)
  expect(queue.errors[0]).toBeInstanceOf(StoreError)
  expect((queue.errors[0] as Error).message).toMatch(new RegExp(`run "${runId}" ended \\(error\\) but its run record could not be updated`))
  expect((await runtime.runs.getRun(runId))?.status).toBe('running')
  // The database is back: the queue's retry resumes the run, which records its end.
  outage = false
  const output = await runtime.resume(runId, { agent })
  const record = await runtime.runs.getRun(runId)
  expect(record?.status).not.toBe('running')
  expect(record?.finishReason).toBe(output.finishReason)
  const events = await runtime.runs.listEvents(runId)
  expect(events.filter((event) => event.type === 'run.finished' || event.type === 'run.failed')).toHaveLength(1)
  expect(eventLogProblems(events, { finished: true })).toEqual([])
})

it('a store that refuses the data itself (not an outage) still gets the run recorded as failed: its end is written alone', async () => {
  const stores = memoryStores()
  const inner = (stores.sessions as { batch?: StoreBatch }).batch!
  let refused = 0
  const batch: StoreBatch = {
    specificationVersion: 'v1',
    stores: inner.stores,
    write: (writes) => {
      // As PostgreSQL's jsonb refuses a NUL character: every commit that carries one fails, however often it is tried.
      if (JSON.stringify(writes).includes('\\u0000')) {
        refused++
        return Promise.reject(new StoreError('[test] unsupported Unicode escape sequence', { isRetryable: false }))
      }
      return inner.write(writes)
    },
  }
  for (const kind of ['sessions', 'runs', 'executions', 'snapshots'] as const) (stores[kind] as { batch?: StoreBatch }).batch = batch
  const runtime = new AgentRuntime(new Extensions().setStores(stores))
  const binary = defineTool({ name: 'binary', description: 'b', inputSchema: z.object({}), execute: () => 'binary\u0000data' })
  const model = mockModel([{ toolCalls: [{ name: 'binary', args: {} }] }, { text: 'done' }])
  const output = await runtime.run({ agent: { name: 'a', model, tools: { binary } }, input: 'x' })
  expect(refused).toBeGreaterThan(0)
  expect(output.finishReason).toBe('error')
  const record = await runtime.runs.getRun(output.runId)
  expect(record).toMatchObject({ status: 'failed', finishReason: 'error', error: { message: expect.stringContaining('unsupported Unicode escape sequence') } })
  expect(record?.lease).toBeUndefined()
})
