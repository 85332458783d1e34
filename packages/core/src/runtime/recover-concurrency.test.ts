// recover() resumes the runs a dead process left concurrently (bounded), returns once the first ones are claimed,
// reports progress, and `done` gives every run's output.
import { expect, it } from 'vitest'
import { AgentRuntime, ConfigurationError, Extensions, memoryStores, type LanguageModel, type RecoverProgress, type StreamPart, type Stores } from '../index.js'

const capabilities = { contextWindow: 100_000, maxOutputTokens: 1000, tools: true, parallelTools: true, reasoning: false, structuredOutput: false }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** K runs in K sessions, left `running` by a "dead" process (its model never answers, its leases expire at once). */
async function crashedRuns(count: number): Promise<Stores> {
  const stores = memoryStores()
  const hung: LanguageModel = {
    specificationVersion: 'v1',
    provider: 'hung',
    modelId: 'm',
    capabilities,
    async *stream(): AsyncIterable<StreamPart> {
      yield { type: 'text-delta', delta: 'never ' }
      await new Promise(() => {})
    },
  }
  const dead = new AgentRuntime(new Extensions().setStores(stores), { leaseMs: 1 })
  for (let index = 0; index < count; index++) void dead.run({ agent: { name: 'writer', model: hung }, input: `task ${index}`, sessionId: `s${index}` })
  for (let tries = 0; (await stores.runs.listRuns({ status: 'running' })).length < count; tries++) {
    if (tries > 500) throw new Error('the runs never started')
    await sleep(2)
  }
  return stores
}

/** A model that counts the calls in flight and holds each until `release()`. */
function gatedModel() {
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const counts = { calls: 0, inFlight: 0, maxInFlight: 0 }
  const model: LanguageModel = {
    specificationVersion: 'v1',
    provider: 'gated',
    modelId: 'm',
    capabilities,
    async *stream(request): AsyncIterable<StreamPart> {
      counts.calls++
      counts.inFlight++
      counts.maxInFlight = Math.max(counts.maxInFlight, counts.inFlight)
      try {
        await gate
        await sleep(5)
        const input = request.messages.find((message) => message.role === 'user')
        yield { type: 'text-delta', delta: `done: ${JSON.stringify(input?.content)}` }
        yield { type: 'finish', finishReason: 'stop' }
      } finally {
        counts.inFlight--
      }
    },
  }
  return { model, counts, release: () => open() }
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms)))
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

it('with K interrupted sessions, recover() returns before the runs finish; at most `concurrency` model calls run at once; done has every output', async () => {
  const stores = await crashedRuns(6)
  const { model, counts, release } = gatedModel()
  const progress: RecoverProgress[] = []
  const runtime = new AgentRuntime(new Extensions().setStores(stores))
  const started = await within(
    runtime.recover({ agents: [{ name: 'writer', model }], concurrency: 2, onProgress: (step) => progress.push(step) }),
    2_000,
    'recover()',
  )
  // Returned while every run is still unfinished: the first two are claimed, the others wait for a slot.
  expect(started.resumed).toEqual([])
  expect(started.failed).toEqual([])
  expect(started.busy).toEqual([])
  expect(started.pending).toHaveLength(6)
  expect(progress.filter((step) => step.state === 'claimed')).toHaveLength(2)
  for (let tries = 0; counts.inFlight < 2; tries++) {
    if (tries > 500) throw new Error('the claimed runs never called their model')
    await sleep(2)
  }
  await sleep(20)
  expect(counts.inFlight).toBe(2)
  release()
  const outcome = await within(started.done, 5_000, 'done')
  expect(counts.maxInFlight).toBe(2)
  expect(counts.calls).toBe(6)
  expect(outcome.resumed.map((output) => output.text).sort()).toEqual([0, 1, 2, 3, 4, 5].map((index) => `done: "task ${index}"`))
  expect(outcome.resumed.every((output) => output.finishReason === 'stop')).toBe(true)
  expect(outcome).toMatchObject({ busy: [], failed: [], interrupted: [] })
  expect(progress.filter((step) => step.state === 'claimed')).toHaveLength(6)
  expect(progress.filter((step) => step.state === 'resumed').map((step) => step.settled)).toEqual([1, 2, 3, 4, 5, 6])
  expect(progress.every((step) => step.total === 6)).toBe(true)
  for (const run of await stores.runs.listRuns()) expect(run.status).toBe('completed')
})

it('the default bound is 4 model calls at once', async () => {
  const stores = await crashedRuns(6)
  const { model, counts, release } = gatedModel()
  const started = await within(new AgentRuntime(new Extensions().setStores(stores)).recover({ agents: [{ name: 'writer', model }] }), 2_000, 'recover()')
  for (let tries = 0; counts.inFlight < 4; tries++) {
    if (tries > 500) throw new Error('four runs never called their model')
    await sleep(2)
  }
  await sleep(20)
  expect(counts.inFlight).toBe(4)
  release()
  expect((await within(started.done, 5_000, 'done')).resumed).toHaveLength(6)
  expect(counts.maxInFlight).toBe(4)
})

it('a run that cannot be resumed is listed in failed (in done, and reported) while the others are resumed', async () => {
  const stores = await crashedRuns(3)
  const { model, release } = gatedModel()
  release()
  const progress: RecoverProgress[] = []
  // The "writer" agent is not given: its model ("hung:m") is in no registry, so no run can be rebuilt.
  const runtime = new AgentRuntime(new Extensions().setStores(stores))
  const outcome = await within((await runtime.recover({ agents: [{ name: 'other', model }], onProgress: (step) => progress.push(step) })).done, 5_000, 'done')
  expect(outcome.resumed).toEqual([])
  expect(outcome.failed).toHaveLength(3)
  expect(outcome.failed.every(({ error }) => error instanceof Error)).toBe(true)
  expect(progress.map((step) => step.state)).toEqual(['failed', 'failed', 'failed'])
})

it('a concurrency that is not a positive integer is a ConfigurationError, and nothing is resumed', async () => {
  const stores = await crashedRuns(1)
  const runtime = new AgentRuntime(new Extensions().setStores(stores))
  for (const concurrency of [0, -1, 1.5, Number.NaN]) await expect(runtime.recover({ concurrency })).rejects.toThrow(ConfigurationError)
  expect((await stores.runs.listRuns())[0]?.status).toBe('running')
})
