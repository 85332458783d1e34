// How a run commits its writes: two atomic batches per tool step when the stores share a StoreBatch, a
// conflict-safe snapshot when another writer appends mid-run, and one call per write without a batch.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, memoryStores, mockModel, type StoreBatch, type Stores, StoreError, type StoreWrite } from '../index.js'
import { stepWriter } from './step-writer.js'

const add = defineTool({ name: 'add', description: 'adds', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b })

/** Memory stores whose shared batch records the write types of every commit. */
function recordingStores(): { stores: Stores; commits: string[][] } {
  const stores = memoryStores()
  const inner = (stores.sessions as { batch?: StoreBatch }).batch!
  const commits: string[][] = []
  const batch: StoreBatch = {
    specificationVersion: 'v1',
    stores: inner.stores,
    write: (writes) => {
      commits.push(writes.map((write) => write.type))
      return inner.write(writes)
    },
  }
  for (const kind of ['sessions', 'runs', 'executions', 'snapshots'] as const) (stores[kind] as { batch?: StoreBatch }).batch = batch
  return { stores, commits }
}

/** Replaces the stores' shared batch with one that rejects the first commit `fails` picks (once), and writes the rest. */
function failOnce(stores: Stores, fails: (writes: readonly StoreWrite[]) => boolean, error: Error): { failed: () => boolean } {
  const batch = (stores.sessions as { batch?: StoreBatch }).batch!
  let failed = false
  const failing: StoreBatch = {
    specificationVersion: 'v1',
    stores: batch.stores,
    write: (writes) => {
      if (!failed && fails(writes)) {
        failed = true
        return Promise.reject(error)
      }
      return batch.write(writes)
    },
  }
  for (const kind of ['sessions', 'runs', 'executions', 'snapshots'] as const) (stores[kind] as { batch?: StoreBatch }).batch = failing
  return { failed: () => failed }
}

/** A tool that appends a note to the run's session from outside the run (another writer, mid-run). */
function noteFromElsewhere(runtime: AgentRuntime, sessionId: () => string) {
  return defineTool({
    name: 'note',
    description: 'appends a note to the session from outside the run',
    inputSchema: z.object({}),
    execute: async () => {
      await runtime.sessions.append(sessionId(), [{ kind: 'message', message: { role: 'user', content: 'a note from elsewhere' } }])
      return 'noted'
    },
  })
}

describe('step batching', () => {
  it('a tool step is two commits: the assistant message with the journal start, then the finish, results, events and snapshot', async () => {
    const { stores, commits } = recordingStores()
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const model = mockModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { toolCalls: [{ name: 'add', args: { a: 3, b: 4 } }] }, { text: 'done' }])
    const output = await runtime.run({ agent: { name: 'a', model, tools: { add } }, input: 'x' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'done', steps: 3 })
    // The run starts with one commit: its input, \`run.started\` and the first snapshot.
    expect(commits[0]).toEqual(['session.append', 'run.events', 'snapshot.save'])
    const beforeTools = ['session.append', 'execution.start']
    const afterTools = ['execution.finish', 'session.append', 'run.events', 'snapshot.save']
    // Each tool step, in order, is exactly these two commits.
    const toolSteps = commits.filter((types) => types.includes('execution.start') || types.includes('execution.finish'))
    expect(toolSteps).toEqual([beforeTools, afterTools, beforeTools, afterTools])
    const first = commits.findIndex((types) => types.includes('execution.start'))
    expect(commits.slice(first, first + 4)).toEqual([beforeTools, afterTools, beforeTools, afterTools])
    // The final answer, its snapshot, the events with the terminal one and the run's end: one last commit.
    expect(commits.slice(first + 4)).toEqual([['session.append', 'run.events', 'snapshot.save', 'run.update']])
    expect(await runtime.runs.getRun(output.runId)).toMatchObject({ status: 'completed', finishReason: 'stop', step: 3 })
    // Everything landed: the log, the journal, the events (gap-free) and a snapshot that points at the last entry.
    const entries = await runtime.sessions.listEntries(output.sessionId)
    expect(entries.map((entry) => (entry.kind === 'message' ? entry.message.role : entry.kind))).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ])
    expect((await runtime.executions.listByRun(output.runId)).map((record) => [record.status, record.result])).toEqual([
      ['succeeded', 3],
      ['succeeded', 7],
    ])
    const events = await runtime.runs.listEvents(output.runId)
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1))
    expect(events.at(-1)?.type).toBe('run.finished')
    const snapshot = await runtime.snapshots.latest(output.runId)
    expect(snapshot?.state).toMatchObject({ phase: 'done', lastSeq: entries.at(-1)!.seq, step: 3 })
  })

  it('a writer appending to the session mid-run fails the predicted commit atomically; the run then writes its entries first and its snapshot points at them', async () => {
    const { stores, commits } = recordingStores()
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    let sessionId = ''
    const intruder = noteFromElsewhere(runtime, () => sessionId)
    const session = await runtime.sessions.createSession()
    sessionId = session.id
    const model = mockModel([{ toolCalls: [{ name: 'note', args: {} }] }, { text: 'done' }])
    const output = await runtime.run({ agent: { name: 'a', model, tools: { note: intruder } }, sessionId, input: 'x' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'done' })
    const failed = commits.findIndex((types) => types.includes('execution.finish') && types.includes('snapshot.save'))
    // The predicted commit was refused as a whole: its writes were then committed without the snapshot, and the snapshot after.
    expect(commits.slice(failed, failed + 3)).toEqual([
      ['execution.finish', 'session.append', 'run.events', 'snapshot.save'],
      ['execution.finish', 'session.append'],
      ['run.events', 'snapshot.save'],
    ])
    const entries = await runtime.sessions.listEntries(sessionId)
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5])
    const toolEntry = entries.find((entry) => entry.kind === 'message' && entry.message.role === 'tool')!
    expect(toolEntry.seq).toBe(4)
    const snapshot = await runtime.snapshots.get(output.runId, 1)
    expect(snapshot?.state).toMatchObject({ step: 1, lastSeq: 4 })
    expect((await runtime.executions.listByRun(output.runId))[0]).toMatchObject({ status: 'succeeded', result: 'noted' })
    const events = await runtime.runs.listEvents(output.runId)
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1))
  })

  it('when the last commit fails, the run ends failed: the stream and the log get run.failed only, gap-free', async () => {
    const { stores, commits } = recordingStores()
    // The run's last commit (its end with the final snapshot) fails once.
    const outage = failOnce(stores, (writes) => writes.some((write) => write.type === 'run.update'), new StoreError('[test] the disk is full'))
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const stream = runtime.stream({
      agent: { name: 'a', model: mockModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { text: 'done' }]), tools: { add } },
      input: 'x',
    })
    const streamed: string[] = []
    for await (const event of stream) streamed.push(event.type)
    const output = await stream.result
    expect(outage.failed()).toBe(true)
    expect(output.finishReason).toBe('error')
    expect(output.error?.message).toContain('the disk is full')
    expect(streamed.filter((type) => type === 'run.finished' || type === 'run.failed')).toEqual(['run.failed'])
    expect(streamed.at(-1)).toBe('run.failed')
    const events = await runtime.runs.listEvents(output.runId)
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1))
    expect(events.map((event) => event.type)).toEqual(streamed)
    expect(await runtime.runs.getRun(output.runId)).toMatchObject({ status: 'failed', finishReason: 'error' })
    // The failure path wrote what the failed commit held: the final answer is in the log.
    const roles = (await runtime.sessions.listEntries(output.sessionId)).map((entry) => (entry.kind === 'message' ? entry.message.role : entry.kind))
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(commits.length).toBeGreaterThan(0)
  })

  it('a writer appending during the final answer: the entries are written first, then the snapshot with the run’s end', async () => {
    const { stores, commits } = recordingStores()
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const session = await runtime.sessions.createSession()
    const model = mockModel(async (_request, index) => {
      if (index === 0) return { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }
      await runtime.sessions.append(session.id, [{ kind: 'message', message: { role: 'user', content: 'a note from elsewhere' } }])
      return { text: 'done' }
    })
    const stream = runtime.stream({ agent: { name: 'a', model, tools: { add } }, sessionId: session.id, input: 'x' })
    const streamed: string[] = []
    for await (const event of stream) streamed.push(event.type)
    const output = await stream.result
    expect(output).toMatchObject({ finishReason: 'stop', text: 'done' })
    expect(commits.slice(-3)).toEqual([
      ['session.append', 'run.events', 'snapshot.save', 'run.update'],
      ['session.append'],
      ['run.events', 'snapshot.save', 'run.update'],
    ])
    expect(streamed.filter((type) => type === 'run.finished' || type === 'run.failed')).toEqual(['run.finished'])
    const events = await runtime.runs.listEvents(output.runId)
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1))
    expect(events.map((event) => event.type)).toEqual(streamed)
    expect(await runtime.runs.getRun(output.runId)).toMatchObject({ status: 'completed', finishReason: 'stop' })
    const entries = await runtime.sessions.listEntries(session.id)
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5])
    expect((await runtime.snapshots.latest(output.runId))?.state).toMatchObject({ phase: 'done', lastSeq: 5 })
  })

  it('a call that finishes while another call of the step still runs has its journal record committed at once', async () => {
    const { stores } = recordingStores()
    const runtime = new AgentRuntime(new Extensions().setStores(stores), { maxParallelTools: 2 })
    let seenFromSlow: string | undefined
    const fast = defineTool({ name: 'fast', description: 'f', inputSchema: z.object({}), execute: () => 'fast done' })
    const slow = defineTool({
      name: 'slow',
      description: 's',
      inputSchema: z.object({}),
      execute: async (_input, context) => {
        await new Promise((resolve) => setTimeout(resolve, 20))
        seenFromSlow = (await runtime.executions.get(context.idempotencyKey.replace(':slow', ':fast')))?.status
        return 'slow done'
      },
    })
    const model = mockModel([
      {
        toolCalls: [
          { name: 'slow', args: {}, id: 'slow' },
          { name: 'fast', args: {}, id: 'fast' },
        ],
      },
      { text: 'done' },
    ])
    const output = await runtime.run({ agent: { name: 'a', model, tools: { fast, slow } }, input: 'x' })
    expect(output.finishReason).toBe('stop')
    expect(seenFromSlow).toBe('succeeded')
  })

  it('a commit that fails writes nothing and loses nothing: its events are logged by the failure path, gap-free', async () => {
    const { stores, commits } = recordingStores()
    // The first commit after the tool ran (its finish, results, events and snapshot) fails once.
    const outage = failOnce(stores, (writes) => writes.some((write) => write.type === 'execution.finish'), new StoreError('[test] the connection dropped'))
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const model = mockModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { text: 'never reached' }])
    const output = await runtime.run({ agent: { name: 'a', model, tools: { add } }, input: 'x' })
    expect(outage.failed()).toBe(true)
    expect(output.finishReason).toBe('error')
    expect(output.error?.message).toContain('the connection dropped')
    const events = await runtime.runs.listEvents(output.runId)
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1))
    expect(events[0]?.type).toBe('run.started')
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['step.started', 'tool.call', 'tool.started', 'tool.result']))
    expect(events.at(-1)?.type).toBe('run.failed')
    // The queued writes of the failed commit were written by the failure path: the journal finish and the result.
    expect((await runtime.executions.listByRun(output.runId))[0]).toMatchObject({ status: 'succeeded', result: 3 })
    const roles = (await runtime.sessions.listEntries(output.sessionId)).map((entry) => (entry.kind === 'message' ? entry.message.role : entry.kind))
    expect(roles).toEqual(['user', 'assistant', 'tool'])
    expect((await runtime.runs.getRun(output.runId))?.status).toBe('failed')
    expect(commits.length).toBeGreaterThan(0)
  })

  it("commits land in call order: a parallel call's journal start never overtakes the commit carrying the assistant message", async () => {
    const stores = memoryStores()
    const landed: string[] = []
    const slowFirst: StoreBatch = {
      specificationVersion: 'v1',
      stores,
      write: async (writes) => {
        // The first commit (the assistant message and call A's start) is slow, as a remote database can be.
        if (writes.length === 2) await new Promise((resolve) => setTimeout(resolve, 20))
        landed.push(writes.map((write) => (write.type === 'execution.start' ? `start ${write.execution.callId}` : write.type)).join(' + '))
        return writes.map(() => undefined)
      },
    }
    const writer = stepWriter(stores, slowFirst)
    const execution = (callId: string) => ({ key: `r:1:${callId}`, runId: 'r', step: 1, callId, toolName: 'add', args: {} })
    writer.defer({ type: 'session.append', sessionId: 's', entries: [{ kind: 'message', message: { role: 'assistant', content: [] } }] })
    const first = writer.commit([{ type: 'execution.start', execution: execution('a') }])
    const second = writer.commit([{ type: 'execution.start', execution: execution('b') }])
    await Promise.all([first, second])
    expect(landed).toEqual(['session.append + start a', 'start b'])
  })

  it('a failed commit rejects alone: the commits queued behind it still land, in order', async () => {
    const stores = memoryStores()
    const landed: string[] = []
    let calls = 0
    const failingFirst: StoreBatch = {
      specificationVersion: 'v1',
      stores,
      write: async (writes) => {
        const call = ++calls
        await new Promise((resolve) => setTimeout(resolve, call === 1 ? 15 : 1))
        if (call === 1) throw new StoreError('[test] the database went away')
        landed.push(writes.map((write) => (write.type === 'execution.start' ? write.execution.callId : write.type)).join(' + '))
        return writes.map(() => undefined)
      },
    }
    const writer = stepWriter(stores, failingFirst)
    const execution = (callId: string) => ({ key: `r:1:${callId}`, runId: 'r', step: 1, callId, toolName: 'add', args: {} })
    const results = await Promise.allSettled(['a', 'b', 'c'].map((callId) => writer.commit([{ type: 'execution.start', execution: execution(callId) }])))
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled'])
    expect(landed).toEqual(['b', 'c'])
    // Nothing is in flight any more: the next commit goes straight to the batch.
    await writer.commit([{ type: 'execution.start', execution: execution('d') }])
    expect(landed).toEqual(['b', 'c', 'd'])
  })

  it('a failed asynchronous commit kept on failure puts its queued writes back in front of those queued meanwhile; the next commit sends them once', async () => {
    const stores = memoryStores()
    const sent: string[][] = []
    let fail = true
    const flaky: StoreBatch = {
      specificationVersion: 'v1',
      stores,
      write: async (writes) => {
        sent.push(writes.map((write) => (write.type === 'run.update' ? String(write.patch.step) : write.type)))
        await new Promise((resolve) => setTimeout(resolve, 5))
        if (fail) throw new StoreError('[test] the database went away')
        return writes.map(() => undefined)
      },
    }
    const writer = stepWriter(stores, flaky)
    const update = (step: number): StoreWrite => ({ type: 'run.update', runId: 'r', patch: { step } })
    const results: number[] = []
    writer.defer(update(1), () => void results.push(1))
    writer.defer(update(2), () => void results.push(2))
    const failing = writer.commit([update(3)], true)
    // Queued while the commit is in flight: after the failure it comes after the two put back.
    writer.defer(update(4), () => void results.push(4))
    await expect(failing).rejects.toThrow('went away')
    expect(writer.queued().map((write) => (write as { patch: { step: number } }).patch.step)).toEqual([1, 2, 4])
    expect(writer.queuedCount).toBe(3)
    fail = false
    await writer.commit([update(5)])
    expect(sent).toEqual([
      ['1', '2', '3'],
      ['1', '2', '4', '5'],
    ])
    expect(results).toEqual([1, 2, 4])
    expect(writer.queued()).toEqual([])
    // A commit after that sends only its own writes.
    await writer.commit([update(6)])
    expect(sent[2]).toEqual(['6'])
  })

  it("with the memory stores' own batch a commit is written and its queued results delivered before commit() returns", async () => {
    const stores = memoryStores()
    await stores.sessions.createSession({ id: 's' })
    const writer = stepWriter(stores, (stores.sessions as { batch?: StoreBatch }).batch)
    const delivered: number[] = []
    writer.defer({ type: 'session.append', sessionId: 's', entries: [{ kind: 'message', message: { role: 'user', content: 'hi' } }] }, (stored) => {
      delivered.push(...stored.map((entry) => entry.seq))
    })
    const committing = writer.commit([{ type: 'execution.start', execution: { key: 'r:1:a', runId: 'r', step: 1, callId: 'a', toolName: 'add', args: {} } }])
    // No async round: the entry is stored and its seq handed back synchronously.
    expect(delivered).toEqual([1])
    expect(writer.queued()).toEqual([])
    const [started] = await committing
    expect(started).toMatchObject({ created: true, record: { key: 'r:1:a', status: 'started' } })
    expect((await stores.sessions.listEntries('s')).map((entry) => entry.seq)).toEqual([1])
    // A synchronous failure rejects the commit and writes nothing (the append before it is undone).
    writer.defer({ type: 'session.append', sessionId: 's', entries: [{ kind: 'message', message: { role: 'user', content: 'lost?' } }] })
    await expect(writer.commit([{ type: 'execution.finish', key: 'never-started', outcome: { status: 'succeeded', result: 1 } }], true)).rejects.toThrow(
      /never started/,
    )
    expect((await stores.sessions.listEntries('s')).map((entry) => entry.seq)).toEqual([1])
    expect(writer.queued()).toHaveLength(1)
  })

  it('commitNow returns the results synchronously through the memory batch, a promise while a commit is in flight, and throws a synchronous failure with nothing written', async () => {
    const stores = memoryStores()
    await stores.sessions.createSession({ id: 's' })
    const writer = stepWriter(stores, (stores.sessions as { batch?: StoreBatch }).batch)
    const start = (callId: string): StoreWrite => ({
      type: 'execution.start',
      execution: { key: `r:1:${callId}`, runId: 'r', step: 1, callId, toolName: 'add', args: {} },
    })
    const now = writer.commitNow([start('a')])
    expect(Array.isArray(now)).toBe(true)
    expect((now as Array<{ created: boolean }>)[0]).toMatchObject({ created: true, record: { status: 'started' } })
    // A failure is thrown, not returned as a rejected promise; the append queued before it is not written and stays queued.
    writer.defer({ type: 'session.append', sessionId: 's', entries: [{ kind: 'message', message: { role: 'user', content: 'kept' } }] })
    expect(() => writer.commitNow([{ type: 'execution.finish', key: 'never-started', outcome: { status: 'succeeded', result: 1 } }], true)).toThrow(
      /never started/,
    )
    expect(writer.queued()).toHaveLength(1)
    expect(await stores.sessions.listEntries('s')).toEqual([])
    // While an asynchronous commit is in flight (a replaced method), the next one waits for it: a promise.
    const original = stores.executions.start.bind(stores.executions)
    stores.executions.start = async (execution) => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      return original(execution)
    }
    const slow = writer.commitNow([start('b')])
    expect(slow).toBeInstanceOf(Promise)
    stores.executions.start = original
    const after = writer.commitNow([start('c')])
    expect(after).toBeInstanceOf(Promise)
    await Promise.all([slow, after])
    expect((await stores.executions.listByRun('r')).map((record) => record.callId)).toEqual(['a', 'b', 'c'])
    expect((await stores.sessions.listEntries('s')).map((entry) => entry.seq)).toEqual([1])
  })

  it('a synchronous commit builds only the results someone reads: queued writes with a callback, and the others when wanted', async () => {
    const stores = memoryStores()
    await stores.sessions.createSession({ id: 's' })
    await stores.runs.createRun({ id: 'r', sessionId: 's', request: { input: 'hi' } })
    await stores.executions.start({ key: 'r:1:a', runId: 'r', step: 1, callId: 'a', toolName: 'add', args: {} })
    const writer = stepWriter(stores, (stores.sessions as { batch?: StoreBatch }).batch)
    let appended: unknown
    writer.defer({ type: 'session.append', sessionId: 's', entries: [{ kind: 'message', message: { role: 'user', content: 'hi' } }] }, (stored) => {
      appended = stored
    })
    // A queued write nobody waits on: its result is not built, but it is written.
    writer.defer({ type: 'execution.finish', key: 'r:1:a', outcome: { status: 'succeeded', result: 3 } })
    const ignored = writer.commitNow([{ type: 'run.update', runId: 'r', patch: { status: 'completed' } }], false, false)
    // Not read: not built, and not returned.
    expect(ignored).toEqual([])
    expect(appended).toEqual([expect.objectContaining({ seq: 1, kind: 'message' })])
    expect(await stores.executions.get('r:1:a')).toMatchObject({ status: 'succeeded', result: 3 })
    expect(await stores.runs.getRun('r')).toMatchObject({ status: 'completed' })
    // Wanted (the default): the results are the stores' own.
    const read = writer.commitNow([{ type: 'run.update', runId: 'r', patch: { step: 2 } }])
    expect(read).toEqual([expect.objectContaining({ id: 'r', status: 'completed', step: 2 })])
  })

  it('with the memory stores, a writer appending mid-run makes the synchronous snapshot commit fail as a whole; the run writes its entries first and its snapshot points at them', async () => {
    const runtime = new AgentRuntime(new Extensions())
    let sessionId = ''
    const intruder = noteFromElsewhere(runtime, () => sessionId)
    sessionId = (await runtime.sessions.createSession()).id
    const model = mockModel([{ toolCalls: [{ name: 'note', args: {} }] }, { text: 'done' }])
    const output = await runtime.run({ agent: { name: 'a', model, tools: { note: intruder } }, sessionId, input: 'x' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'done' })
    const entries = await runtime.sessions.listEntries(sessionId)
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5])
    expect(entries.map((entry) => (entry.kind === 'message' ? entry.message.role : entry.kind))).toEqual(['user', 'assistant', 'user', 'tool', 'assistant'])
    expect((await runtime.snapshots.get(output.runId, 1))?.state).toMatchObject({ step: 1, lastSeq: 4 })
    const events = await runtime.runs.listEvents(output.runId)
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1))
    expect(events.filter((event) => event.type === 'snapshot.saved').map((event) => (event as { version: number }).version)).toEqual([0, 1, 2])
  })

  it('a memory batch whose store method was replaced goes through it, and a commit made meanwhile waits for it (call order kept)', async () => {
    const stores = memoryStores()
    await stores.sessions.createSession({ id: 's' })
    const landed: string[] = []
    const start = stores.executions.start.bind(stores.executions)
    // A wrapper on the instance (instrumentation, a test double) that takes a while.
    stores.executions.start = async (execution) => {
      await new Promise((resolve) => setTimeout(resolve, 20))
      landed.push(`start ${execution.callId}`)
      return start(execution)
    }
    const writer = stepWriter(stores, (stores.sessions as { batch?: StoreBatch }).batch)
    const first = writer.commit([{ type: 'execution.start', execution: { key: 'r:1:a', runId: 'r', step: 1, callId: 'a', toolName: 'add', args: {} } }])
    const second = writer.commit([
      {
        type: 'session.append',
        sessionId: 's',
        entries: [{ kind: 'message', message: { role: 'user', content: 'after' } }],
        fence: undefined,
        expectedLastSeq: undefined,
      },
    ])
    void second.then(() => landed.push('append'))
    await Promise.all([first, second])
    expect(landed).toEqual(['start a', 'append'])
    expect((await stores.executions.get('r:1:a'))?.status).toBe('started')
  })

  it('stores without a shared batch get one call per write, in the durable order', async () => {
    const stores = memoryStores()
    const calls: string[] = []
    const wrapped = {} as Stores
    for (const [kind, store] of Object.entries(stores) as Array<[keyof Stores, object]>) {
      ;(wrapped as unknown as Record<string, unknown>)[kind] = new Proxy(store, {
        get(target, property) {
          const value = Reflect.get(target, property, target) as unknown
          if (typeof value !== 'function') return value
          return (...args: unknown[]) => {
            if (['append', 'start', 'finish', 'appendEvents', 'save', 'updateRun'].includes(String(property))) calls.push(`${kind}.${String(property)}`)
            return (value as (...values: unknown[]) => unknown).apply(target, args)
          }
        },
      })
    }
    const runtime = new AgentRuntime(new Extensions().setStores(wrapped))
    const model = mockModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { text: 'done' }])
    const output = await runtime.run({ agent: { name: 'a', model, tools: { add } }, input: 'x' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'done' })
    const step = calls.indexOf('executions.start')
    expect(calls.slice(step - 1, step + 6)).toEqual([
      'sessions.append',
      'executions.start',
      'executions.finish',
      'sessions.append',
      'runs.appendEvents',
      'snapshots.save',
      'runs.appendEvents',
    ])
  })
})

describe('snapshot states are values', () => {
  it('a state given to a snapshot is never changed afterwards (a store may keep the object it was given)', async () => {
    const stores = memoryStores()
    const inner = (stores.sessions as { batch?: StoreBatch }).batch!
    const kept: Array<{ state: object; json: string }> = []
    const keeping: StoreBatch = {
      specificationVersion: 'v1',
      stores: inner.stores,
      write: (writes) => {
        for (const write of writes) if (write.type === 'snapshot.save') kept.push({ state: write.snapshot.state, json: JSON.stringify(write.snapshot.state) })
        return inner.write(writes)
      },
    }
    for (const store of Object.values(stores)) (store as { batch?: StoreBatch }).batch = keeping
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const model = mockModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { toolCalls: [{ name: 'add', args: { a: 3, b: 4 } }] }, { text: 'done' }])
    const output = await runtime.run({ agent: { name: 'a', model, tools: { add } }, input: 'go' })
    expect(output).toMatchObject({ finishReason: 'stop', steps: 3 })
    // The input checkpoint, one per tool step, the last one.
    expect(kept.length).toBeGreaterThanOrEqual(4)
    for (const { state, json } of kept) expect(JSON.stringify(state)).toBe(json)
    const seqs = kept.map(({ state }) => (state as { eventSeq: number }).eventSeq)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    expect(new Set(kept.map(({ state }) => state)).size).toBe(kept.length)
  })
})
