// Durability in-process: approvals, and resume after a simulated crash at precise points (the stores of the
// "crashed" runtime freeze; a second runtime on the same stores resumes from the snapshot and the log).
import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  type AgentEvent,
  AgentRuntime,
  defineTool,
  discardedSeqs,
  eventLogProblems,
  Extensions,
  liveViewProblems,
  InProcessSessionGate,
  memoryStores,
  mockModel,
  NotFoundError,
  type SessionGate,
  type Stores,
  type Tool,
} from '../index.js'

/** Wraps stores so that, once `crash()` is called, every call hangs forever — like a dead process. */
function crashable(stores: Stores, trigger: (store: string, method: string, count: number, args: unknown[]) => boolean): Stores {
  let dead = false
  const counts = new Map<string, number>()
  const wrap = <T extends object>(name: string, store: T): T =>
    new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          const key = `${name}.${String(property)}`
          const count = (counts.get(key) ?? 0) + 1
          counts.set(key, count)
          if (!dead && trigger(name, String(property), count, args)) dead = true
          if (dead) return new Promise(() => {})
          return value.apply(target, args)
        }
      },
    })
  return Object.fromEntries(Object.entries(stores).map(([name, store]) => [name, wrap(name, store)])) as unknown as Stores
}

function ledgerTool(ledger: string[], options: { idempotent?: boolean; reconcile?: Tool['reconcile'] } = {}) {
  return defineTool({
    name: 'pay',
    description: 'pays',
    inputSchema: z.object({ amount: z.number() }),
    idempotent: options.idempotent ?? false,
    reconcile: options.reconcile,
    execute: ({ amount }, { idempotencyKey }) => {
      ledger.push(idempotencyKey)
      return { paid: amount }
    },
  })
}

async function crashThenResume(trigger: Parameters<typeof crashable>[1], tool: Tool, secondScript: Parameters<typeof mockModel>[0]) {
  const stores = memoryStores()
  const first = new AgentRuntime(new Extensions().setStores(crashable(stores, trigger)), { leaseMs: 1 })
  const firstModel = mockModel([{ toolCalls: [{ name: 'pay', args: { amount: 5 }, id: 'p1' }] }, { text: 'paid (first process)' }])
  void first.run({ agent: { name: 'payer', model: firstModel, tools: { pay: tool } }, input: 'pay 5', sessionId: 's' })
  await new Promise((resolve) => setTimeout(resolve, 30))
  const [run] = await stores.runs.listRuns()
  expect(run?.status).toBe('running')
  const second = new AgentRuntime(new Extensions().setStores(stores))
  const secondModel = mockModel(secondScript)
  const output = await second.resume(run!.id, { agent: { name: 'payer', model: secondModel, tools: { pay: tool } } })
  const entries = await stores.sessions.listEntries('s')
  return { output, stores, secondModel, entries, runId: run!.id }
}

describe('resume after a crash', () => {
  it('a subscriber that saw the crashed attempt live, then catches up after its last seq, holds exactly the log: no number changes meaning, the discarded ones are declared, the interrupted call is announced again', async () => {
    const ledger: string[] = []
    const stores = memoryStores()
    const first = new AgentRuntime(new Extensions().setStores(crashable(stores, (store, method) => store === 'executions' && method === 'finish')), {
      leaseMs: 1,
    })
    const seen: AgentEvent[] = []
    const watching = (async () => {
      for await (const event of first.subscribe()) if (event.type !== 'lagged') seen.push(event)
    })()
    const tool = ledgerTool(ledger)
    const firstModel = mockModel([{ text: 'paying', toolCalls: [{ name: 'pay', args: { amount: 5 }, id: 'p1' }] }, { text: 'never' }])
    void first.run({ agent: { name: 'payer', model: firstModel, tools: { pay: tool } }, input: 'pay 5', sessionId: 's' })
    await new Promise((resolve) => setTimeout(resolve, 30))
    first.events.close?.()
    await watching
    // The crashed attempt delivered the interrupted step live (its log never got it).
    expect(seen.map((event) => event.type)).toEqual(expect.arrayContaining(['step.started', 'tool.call', 'tool.started']))
    const [run] = await stores.runs.listRuns()
    const second = new AgentRuntime(new Extensions().setStores(stores))
    await second.resume(run!.id, { agent: { name: 'payer', model: mockModel([{ text: 'checked' }]), tools: { pay: tool } } })
    const log = await stores.runs.listEvents(run!.id)
    expect(eventLogProblems(log, { finished: true })).toEqual([])
    // Every number the subscriber saw keeps its meaning, or is declared discarded by the run.resumed that follows.
    const gone = discardedSeqs(log)
    const bySeq = new Map(log.map((event) => [event.seq, event]))
    for (const event of seen) {
      if (gone.has(event.seq)) expect(bySeq.has(event.seq)).toBe(false)
      else expect({ seq: event.seq, type: bySeq.get(event.seq)?.type }).toEqual({ seq: event.seq, type: event.type })
    }
    expect(seen.some((event) => gone.has(event.seq))).toBe(true)
    expect(
      liveViewProblems(log, [seen.map(({ seq, type, ...rest }) => ({ seq, type, callId: 'callId' in rest ? (rest.callId as string) : undefined }))]),
    ).toEqual([])
    // Last-Event-ID catch-up: what it kept plus the log after its last seq is the log, each event once.
    const last = Math.max(...seen.map((event) => event.seq))
    const held = seen.filter((event) => !gone.has(event.seq)).concat(await stores.runs.listEvents(run!.id, { after: last }))
    expect(held.map((event) => event.seq)).toEqual(log.map((event) => event.seq))
    // The interrupted step is announced again in the log before its call is answered.
    const types = log
      .slice(log.findIndex((event) => event.type === 'run.resumed'))
      .map((event) => `${event.type}${'callId' in event ? ` ${event.callId}` : ''}`)
    expect(types.slice(0, 4)).toEqual(['run.resumed', 'step.started', 'text.delta', 'tool.call p1'])
    expect(types).toContain('tool.error p1')
  })

  it('crash between a non-idempotent side effect and its journal write: never run twice, the model is told the outcome is unknown', async () => {
    const ledger: string[] = []
    const { output, secondModel, entries, stores, runId } = await crashThenResume(
      (store, method) => store === 'executions' && method === 'finish',
      ledgerTool(ledger),
      [{ text: 'I will check the payment first.' }],
    )
    expect(ledger).toHaveLength(1)
    // The journal records the decision (not left `started`): a later resume reads the same outcome.
    expect(await stores.executions.listByRun(runId)).toEqual([
      expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'outcome_unknown' }) }),
    ])
    expect(output).toMatchObject({ finishReason: 'stop', text: 'I will check the payment first.' })
    expect(JSON.stringify(secondModel.calls[0]?.messages.at(-1))).toContain('outcome of \\"pay\\" (call p1) is unknown')
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, index) => index + 1))
  })

  it('the same crash with an idempotent tool re-runs it once and records the result once', async () => {
    const ledger: string[] = []
    const { output, stores, runId } = await crashThenResume(
      (store, method) => store === 'executions' && method === 'finish',
      ledgerTool(ledger, { idempotent: true }),
      [{ text: 'done' }],
    )
    expect(ledger).toHaveLength(2)
    expect(new Set(ledger).size).toBe(1)
    expect(output.text).toBe('done')
    const journal = await stores.executions.listByRun(runId)
    expect(journal).toEqual([expect.objectContaining({ status: 'succeeded', result: { paid: 5 }, attempt: 2 })])
  })

  it('reconcile() decides for a non-idempotent tool', async () => {
    const ledger: string[] = []
    const reconcile: Tool['reconcile'] = ({ idempotencyKey }) =>
      ledger.includes(idempotencyKey) ? { action: 'result', result: { paid: 5, reconciled: true } } : { action: 'rerun' }
    const { output, secondModel, stores, runId } = await crashThenResume(
      (store, method) => store === 'executions' && method === 'finish',
      ledgerTool(ledger, { reconcile }),
      [{ text: 'ok' }],
    )
    expect(ledger).toHaveLength(1)
    expect(await stores.executions.listByRun(runId)).toEqual([expect.objectContaining({ status: 'succeeded', result: { paid: 5, reconciled: true } })])
    expect(output.text).toBe('ok')
    expect(JSON.stringify(secondModel.calls[0]?.messages.at(-1))).toContain('reconciled')
  })

  it('crash during the model stream: the step is redone, nothing is duplicated', async () => {
    const ledger: string[] = []
    const { output, entries } = await crashThenResume(
      (store, method, count) => store === 'sessions' && method === 'append' && count === 2,
      ledgerTool(ledger),
      [{ toolCalls: [{ name: 'pay', args: { amount: 5 }, id: 'p9' }] }, { text: 'paid' }],
    )
    expect(output.text).toBe('paid')
    expect(ledger).toHaveLength(1)
    expect(entries.filter((entry) => entry.kind === 'message' && entry.message.role === 'user')).toHaveLength(1)
    expect(entries.map((entry) => entry.kind === 'message' && entry.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })

  it('crash after the assistant message was written but before its snapshot: the log is replayed, the tool runs once', async () => {
    const ledger: string[] = []
    const { output, entries } = await crashThenResume((store, method) => store === 'executions' && method === 'start', ledgerTool(ledger), [
      { text: 'paid after resume' },
    ])
    expect(ledger).toHaveLength(1)
    expect(output.text).toBe('paid after resume')
    expect(entries.map((entry) => entry.kind === 'message' && entry.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })

  it('recover() resumes runs left running by a dead process', async () => {
    const stores = memoryStores()
    const dead = new AgentRuntime(new Extensions().setStores(crashable(stores, (store, method) => store === 'sessions' && method === 'append' && false)), {
      leaseMs: 1,
    })
    const hanging = mockModel([{ text: 'never', delayMs: 60_000 }])
    void dead.run({ agent: { name: 'writer', model: hanging }, input: 'write', sessionId: 'r' }).catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 20))
    const fresh = new AgentRuntime(new Extensions().setStores(stores))
    const { resumed } = await (await fresh.recover({ agents: [{ name: 'writer', model: mockModel([{ text: 'recovered' }]) }] })).done
    expect(resumed.map((output) => output.text)).toEqual(['recovered'])
    await dead.cancel(resumed[0]!.runId)
  })

  it('a run that died after logging its end, before recording it, is recorded once when two processes resume it at once', async () => {
    const stores = memoryStores()
    // The crash: the run's last write, the record of its end (the event log has run.finished already).
    const ending = (store: string, method: string, _count: number, args: unknown[]) =>
      store === 'runs' && method === 'updateRun' && (args[1] as { status?: string }).status === 'completed'
    const first = new AgentRuntime(new Extensions().setStores(crashable(stores, ending)), { leaseMs: 1 })
    const model = mockModel([{ text: 'done before the crash' }])
    void first.run({ agent: { name: 'a', model }, input: 'hi', sessionId: 's' })
    await new Promise((resolve) => setTimeout(resolve, 30))
    const [run] = await stores.runs.listRuns()
    expect(run?.status).toBe('running')
    const logged = await stores.runs.listEvents(run!.id)
    expect(logged.at(-1)?.type).toBe('run.finished')
    // Two processes, each with a gate of its own, both read the run as running before either records its end.
    const [b, c] = [new AgentRuntime(new Extensions().setStores(stores)), new AgentRuntime(new Extensions().setStores(stores))]
    const agent = { name: 'a', model: mockModel([]) }
    const settled = await Promise.allSettled([b.resume(run!.id, { agent }), c.resume(run!.id, { agent })])
    const outputs = settled.filter((outcome) => outcome.status === 'fulfilled')
    const refused = settled.filter((outcome) => outcome.status === 'rejected')
    expect(outputs).toHaveLength(1)
    expect((outputs[0] as PromiseFulfilledResult<{ text: string }>).value.text).toBe('done before the crash')
    // The other one wrote nothing: its claim on the record it read was lost.
    expect(refused).toHaveLength(1)
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ name: 'SessionBusyError', details: { runId: run!.id, claimed: true } })
    expect((await stores.runs.getRun(run!.id))?.status).toBe('completed')
  })

  it('resuming a finished run returns its output without calling the model', async () => {
    const runtime = new AgentRuntime()
    const model = mockModel([{ text: 'once' }])
    const output = await runtime.run({ agent: { name: 'a', model }, input: 'x' })
    const again = await runtime.resume(output.runId)
    expect(again).toMatchObject({ runId: output.runId, finishReason: 'stop', text: 'once' })
    expect(again.messages).toEqual(output.messages)
    expect(model.calls).toHaveLength(1)
    await expect(runtime.resume('run_missing')).rejects.toBeInstanceOf(NotFoundError)
  })
})

describe('the answer so far across a crash', () => {
  const key = 'sk-ant-api03-PLANTEDplantedPLANTED0123'
  /** An answer cut at the length limit, then continued: the key is in its first half. */
  const continued = () => mockModel([{ text: `the key is ${key}`, finishReason: 'length', chunkSize: 1_000 }, { text: ', said twice.' }])
  const finalText = (snapshots: Array<{ state: unknown }>) => (snapshots.at(-1)!.state as { text: string }).text

  it('snapshots store it redacted; the output, and a later read of it, keep the text the model wrote', async () => {
    const stores = memoryStores()
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const agent = { name: 'a', model: continued() }
    const output = await runtime.run({ agent, input: 'tell me', sessionId: 's' })
    expect(output).toMatchObject({ finishReason: 'stop', text: `the key is ${key}, said twice.` })
    const snapshots = await stores.snapshots.list(output.runId)
    expect(JSON.stringify(snapshots)).not.toContain(key)
    expect(finalText(snapshots)).toBe('the key is [REDACTED], said twice.')
    // The run has ended: a resume rebuilds its output from the stores.
    expect((await runtime.resume(output.runId, { agent })).text).toBe(`the key is ${key}, said twice.`)
  })

  it('a run that died after its last snapshot, before logging its end, finishes with the text the model wrote', async () => {
    const stores = memoryStores()
    const ends = (args: unknown[]) => (args[1] as Array<{ type: string }> | undefined)?.some((event) => event.type === 'run.finished') === true
    const first = new AgentRuntime(
      new Extensions().setStores(crashable(stores, (store, method, _count, args) => store === 'runs' && method === 'appendEvents' && ends(args))),
      { leaseMs: 1 },
    )
    void first.run({ agent: { name: 'a', model: continued() }, input: 'tell me', sessionId: 's' })
    await new Promise((resolve) => setTimeout(resolve, 30))
    const [run] = await stores.runs.listRuns()
    expect(run?.status).toBe('running')
    const snapshots = await stores.snapshots.list(run!.id)
    expect(finalText(snapshots)).toBe('the key is [REDACTED], said twice.')
    const output = await new AgentRuntime(new Extensions().setStores(stores)).resume(run!.id, { agent: { name: 'a', model: mockModel([]) } })
    expect(output).toMatchObject({ finishReason: 'stop', text: `the key is ${key}, said twice.` })
    expect(JSON.stringify(await stores.snapshots.list(run!.id))).not.toContain(key)
  })
})

describe('approvals', () => {
  const ledger: string[] = []
  const remove = defineTool({
    name: 'remove_file',
    description: 'removes a file',
    inputSchema: z.object({ path: z.string() }),
    effect: 'irreversible',
    execute: ({ path }) => {
      ledger.push(path)
      return `removed ${path}`
    },
  })

  it('policy requireApproval by effect class suspends; approve + resume executes once, also from another runtime', async () => {
    const stores = memoryStores()
    const runtime = new AgentRuntime(new Extensions().setStores(stores), { requireApproval: ['irreversible'] })
    const model = mockModel([{ toolCalls: [{ name: 'remove_file', args: { path: 'a.txt' }, id: 'r1' }] }, { text: 'removed it' }])
    const agent = { name: 'cleaner', model, tools: { remove_file: remove } }
    const events: string[] = []
    const stream = runtime.stream({ agent, input: 'remove a.txt' })
    for await (const event of stream) events.push(event.type)
    const suspended = await stream.result
    expect(suspended.finishReason).toBe('awaiting_approval')
    expect(events).toContain('approval.requested')
    expect(ledger).toEqual([])
    await expect(runtime.approve(suspended.runId, 'nope', { approved: true })).rejects.toThrow(/Calls awaiting approval: r1/)
    // A "restarted" process with the same stores approves and resumes.
    const restarted = new AgentRuntime(new Extensions().setStores(stores), { requireApproval: ['irreversible'] })
    await restarted.approve(suspended.runId, 'r1', { approved: true })
    const output = await restarted.resume(suspended.runId, { agent })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'removed it' })
    expect(ledger).toEqual(['a.txt'])
  })

  it('a denial goes back to the model as a tool result with the reason', async () => {
    const model = mockModel([{ toolCalls: [{ name: 'remove_file', args: { path: 'b.txt' }, id: 'r2' }] }, { text: 'ok, kept it' }])
    const runtime = new AgentRuntime(new Extensions(), { requireApproval: ['remove_file'] })
    const agent = { name: 'cleaner', model, tools: { remove_file: remove } }
    const suspended = await runtime.run({ agent, input: 'remove b.txt' })
    await runtime.approve(suspended.runId, 'r2', { approved: false, reason: 'b.txt is needed' })
    const output = await runtime.resume(suspended.runId)
    expect(output.text).toBe('ok, kept it')
    expect(ledger).not.toContain('b.txt')
    expect(JSON.stringify(model.calls[1]?.messages.at(-1))).toContain('b.txt is needed')
    const roles = output.messages.map((message) => message.role)
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })

  it('cancel() closes a suspended run: the pending call gets a result and the run is cancelled', async () => {
    const model = mockModel([{ toolCalls: [{ name: 'remove_file', args: { path: 'c.txt' }, id: 'r3' }] }])
    const runtime = new AgentRuntime(new Extensions(), { requireApproval: ['remove_file'] })
    const suspended = await runtime.run({ agent: { name: 'c', model, tools: { remove_file: remove } }, input: 'x' })
    expect(await runtime.cancel(suspended.runId)).toBe(true)
    const run = await runtime.runs.getRun(suspended.runId)
    expect(run).toMatchObject({ status: 'cancelled', finishReason: 'cancelled' })
    const entries = await runtime.sessions.listEntries(suspended.sessionId)
    expect(entries.at(-1)).toMatchObject({ kind: 'message', message: { role: 'tool' } })
  })
})

/** A gate whose every lease is lost when `signal` aborts (as when another process takes the session over). */
function losableGate(signal: AbortSignal): SessionGate {
  return {
    specificationVersion: 'v1',
    acquire: async (sessionId, options) => ({ sessionId, owner: options.owner, token: 1, signal, release: async () => {} }),
    state: async (sessionId) => ({ sessionId, queued: 0 }),
  }
}

describe('lease lost', () => {
  it('a run whose session lease is taken over stops without writing: the new holder owns it', async () => {
    const stores = memoryStores()
    const extensions = new Extensions().setStores(stores)
    const lost = new AbortController()
    extensions.gate = losableGate(lost.signal)
    const runtime = new AgentRuntime(extensions)
    const stream = runtime.stream({ agent: { name: 'a', model: mockModel([{ text: 'z'.repeat(50), chunkSize: 1, delayMs: 500 }]) }, input: 'x' })
    setTimeout(() => lost.abort(), 40)
    const events = []
    for await (const event of stream) events.push(event)
    const output = await stream.result
    expect(output.error?.code).toBe('lease_lost')
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', error: { code: 'lease_lost' } })
    const run = await stores.runs.getRun(output.runId)
    expect(run?.status).toBe('running')
    expect((await stores.runs.listEvents(output.runId)).some((event) => event.type === 'run.failed' || event.type === 'run.finished')).toBe(false)
  })

  it('a lease the gate can never take away (the in-process one) is not listened to; a losable one is, until the run ends', async () => {
    /** Listeners on `signal` once a run on `gate` streams its first delta (the run is then abandoned: cancelled). */
    const listenersMidRun = async (gate: SessionGate, signal: AbortSignal): Promise<number> => {
      const extensions = new Extensions()
      extensions.gate = gate
      const stream = new AgentRuntime(extensions).stream({
        agent: { name: 'a', model: mockModel([{ text: 'so slow', chunkSize: 3, delayMs: 200 }]) },
        input: 'x',
      })
      let listeners = -1
      for await (const event of stream) {
        if (event.type !== 'text.delta') continue
        listeners = getEventListeners(signal, 'abort').length
        break
      }
      expect((await stream.result).finishReason).toBe('cancelled')
      return listeners
    }
    const inProcess = new InProcessSessionGate()
    const lease = await inProcess.acquire('probe', { owner: 'probe', onContention: 'reject', maxQueue: 0, queueTimeoutMs: 1_000 })
    await lease.release()
    expect(await listenersMidRun(inProcess, lease.signal)).toBe(0)

    const lost = new AbortController()
    expect(await listenersMidRun(losableGate(lost.signal), lost.signal)).toBe(1)
    expect(getEventListeners(lost.signal, 'abort')).toHaveLength(0)
  })
})
