// Admission and the session gate: every rejection is typed and nothing is persisted.
import { describe, expect, it } from 'vitest'
import { AdmissionError, AgentRuntime, Extensions, memoryStores, mockModel, SessionBusyError, SpindleError, type Stores } from '../index.js'

async function nothingPersisted(stores: Stores): Promise<void> {
  expect(await stores.sessions.listSessions()).toEqual([])
  expect(await stores.runs.listRuns()).toEqual([])
}

function setup(policy = {}, hooks: Array<() => void> = []) {
  const stores = memoryStores()
  const runtime = new AgentRuntime(new Extensions().setStores(stores), policy, { admission: hooks })
  return { stores, runtime }
}

describe('admission', () => {
  const agent = { name: 'a', model: mockModel(() => ({ text: 'ok' })) }

  it.each([
    ['empty text', { agent, input: '   ' }, /input is empty/],
    ['no messages', { agent, input: [] }, /invalid run request/],
    ['no agent model', { agent: { name: 'a' }, input: 'x' }, /agent.model is required/],
    ['bad session id', { agent, input: 'x', sessionId: '' }, /invalid run request/],
    ['idempotency key without a session', { agent, input: 'x', idempotencyKey: 'k' }, /needs a sessionId/],
    ['a tool that is not a tool', { agent: { ...agent, tools: { x: 42 } }, input: 'x' }, /agent\.tools\.x is not a tool \(got number\)/],
    [
      'a tool object without execute',
      { agent: { ...agent, tools: [{ name: 'x', inputSchema: {} }] }, input: 'x' },
      /agent\.tools\[0\] is not a tool \(got an object with keys \["name","inputSchema"\]\)/,
    ],
    ['tools that are not a set', { agent: { ...agent, tools: 'add' }, input: 'x' }, /agent\.tools must be an object or an array of tools, got string/],
    ['no request at all (null)', null, /invalid run request/],
    ['no request at all (undefined)', undefined, /invalid run request/],
  ])('rejects %s with an AdmissionError before writing anything', async (_name, request, message) => {
    const { stores, runtime } = setup()
    const error = await runtime.run(request as never).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(AdmissionError)
    expect(SpindleError.isInstance(error) && error.code).toBe('admission_rejected')
    expect(String((error as Error).message)).toMatch(message)
    await nothingPersisted(stores)
  })

  it('stream() rejects a request that is not an object the same way, through its result', async () => {
    const { stores, runtime } = setup()
    const stream = runtime.stream(null as never)
    await expect(stream.result).rejects.toBeInstanceOf(AdmissionError)
    await expect(
      (async () => {
        for await (const _event of stream) void _event
      })(),
    ).rejects.toBeInstanceOf(AdmissionError)
    await nothingPersisted(stores)
  })

  it('rejects input over maxInputBytes', async () => {
    const { stores, runtime } = setup({ maxInputBytes: 100 })
    await expect(runtime.run({ agent, input: 'x'.repeat(200) })).rejects.toThrow(/over policy.maxInputBytes/)
    await nothingPersisted(stores)
  })

  it('an admission hook can reject (rate limit)', async () => {
    const { stores, runtime } = setup({}, [
      () => {
        throw new Error('rate limited: 10 runs/min')
      },
    ])
    await expect(runtime.run({ agent, input: 'x' })).rejects.toSatisfy(
      (error: unknown) => AdmissionError.isInstance(error) && /rate limited/.test(error.message),
    )
    await nothingPersisted(stores)
  })

  it('an unknown model id is rejected before anything is written', async () => {
    const { stores, runtime } = setup()
    await expect(runtime.run({ agent: { name: 'a', model: 'nowhere:model-x' }, input: 'x' })).rejects.toThrow(/no provider "nowhere"/)
    await nothingPersisted(stores)
  })

  it('a stream rejects with the same typed error', async () => {
    const { runtime } = setup()
    const stream = runtime.stream({ agent, input: '' })
    await expect(
      (async () => {
        for await (const _ of stream) void _
      })(),
    ).rejects.toBeInstanceOf(AdmissionError)
    await expect(stream.result).rejects.toBeInstanceOf(AdmissionError)
  })

  it('the same idempotencyKey on a session returns the existing run', async () => {
    const model = mockModel([{ text: 'first', delayMs: 20 }, { text: 'second' }])
    const { stores, runtime } = setup()
    const request = { agent: { name: 'a', model }, input: 'x', sessionId: 's1', idempotencyKey: 'submit-1' }
    const [one, two] = await Promise.all([runtime.run(request), runtime.run(request)])
    const three = await runtime.run(request)
    expect(two.runId).toBe(one.runId)
    expect(three.runId).toBe(one.runId)
    expect(three.text).toBe('first')
    expect(model.calls).toHaveLength(1)
    expect(await stores.runs.listRuns({ sessionId: 's1' })).toHaveLength(1)
  })
})

describe('session gate through the runtime', () => {
  it('reject mode: a second run on a busy session fails with SessionBusyError, nothing written for it', async () => {
    const { stores, runtime } = setup({ onContention: 'reject' })
    const slow = runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'slow', delayMs: 50 }]) }, input: 'x', sessionId: 's' })
    await new Promise((resolve) => setTimeout(resolve, 5))
    await expect(runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'fast' }]) }, input: 'y', sessionId: 's' })).rejects.toBeInstanceOf(
      SessionBusyError,
    )
    await slow
    expect(await stores.runs.listRuns({ sessionId: 's' })).toHaveLength(1)
  })

  it('queue mode: runs on one session never overlap and go in FIFO order', async () => {
    const { runtime } = setup({ onContention: 'queue' })
    const intervals: Array<{ name: string; start: number; end: number }> = []
    const run = async (name: string) => {
      const model = mockModel([{ text: name, delayMs: 15 }])
      const start = performance.now()
      const output = await runtime.run({ agent: { name, model }, input: name, sessionId: 'q' })
      intervals.push({ name, start, end: performance.now() })
      return output
    }
    const outputs = await Promise.all(['r1', 'r2', 'r3'].map(run))
    expect(outputs.map((output) => output.text)).toEqual(['r1', 'r2', 'r3'])
    expect(intervals.map((interval) => interval.name)).toEqual(['r1', 'r2', 'r3'])
    const session = await runtime.sessions.listEntries('q')
    expect(session.map((entry) => entry.kind === 'message' && entry.message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant'])
  })

  it('queue mode: a full queue and a queue timeout are SessionBusyErrors', async () => {
    const { runtime } = setup({ onContention: 'queue', maxQueue: 1, queueTimeoutMs: 30 })
    const agent = (text: string, delayMs = 0) => ({ name: 'a', model: mockModel([{ text, delayMs }]) })
    const holder = runtime.run({ agent: agent('hold', 120), input: 'x', sessionId: 'b' })
    await new Promise((resolve) => setTimeout(resolve, 5))
    const waiter = runtime.run({ agent: agent('wait'), input: 'x', sessionId: 'b' })
    await expect(runtime.run({ agent: agent('over'), input: 'x', sessionId: 'b' })).rejects.toThrow(/maxQueue/)
    await expect(waiter).rejects.toThrow(/queueTimeoutMs/)
    expect((await holder).text).toBe('hold')
  })
})
