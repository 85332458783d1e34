// describeResumeRace: two processes (two AgentRuntimes, each with its own connection and in-process gate) resuming
// the same crashed run at the same moment, on any store backend. The run must be claimed (RunStore.claimRun) so
// that exactly one continues it, and the session log holds one tool result for the interrupted call, not one each.
import {
  AgentRuntime,
  defineTool,
  eventLogProblems,
  Extensions,
  jsonSchema,
  mockModel,
  SessionBusyError,
  type AgentSpec,
  type RecoverResult,
  type Stores,
} from '@spindle/core'
import { describe, expect, it } from 'vitest'

/** The backend `describeResumeRace` runs its cases on: how to open the stores as one more process would. */
export interface ResumeRaceBackend {
  /**
   * Stores on the case's backend: a new connection at each call (one per process) for a database; the memory
   * stores return one shared instance.
   */
  connect(): Stores | Promise<Stores>
}

const storeKeys = ['sessions', 'runs', 'executions', 'snapshots', 'embeddings', 'artifacts'] as const

/** Stores whose calls all hang from the first one `trigger` picks: a process that died there. */
export function storesThatDieAt(stores: Stores, trigger: (store: string, method: string) => boolean): Stores {
  let dead = false
  const wrap = <T extends object>(name: string, store: T): T =>
    new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          if (!dead && trigger(name, String(property))) dead = true
          if (dead) return new Promise(() => {})
          return value.apply(target, args)
        }
      },
    })
  return Object.fromEntries(storeKeys.map((name) => [name, wrap(name, stores[name])])) as unknown as Stores
}

/** How many tool results session `sessionId`'s log holds for each call id. */
async function toolResultsPerCall(stores: Stores, sessionId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const entry of await stores.sessions.listEntries(sessionId)) {
    if (entry.kind !== 'message' || entry.message.role !== 'tool') continue
    for (const part of entry.message.content) counts[part.toolCallId] = (counts[part.toolCallId] ?? 0) + 1
  }
  return counts
}

/**
 * A run left `running` by a dead process: its lease expired, its `pay` call started in the journal and never
 * finished. Returns the run id, the `pay` calls made (their idempotency keys) and the agent to resume with.
 */
async function crashedRun(backend: ResumeRaceBackend, sessionId: string) {
  const ledger: string[] = []
  const pay = defineTool({
    name: 'pay',
    description: 'pays',
    inputSchema: jsonSchema<{ amount: number }>({ type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] }),
    execute: ({ amount }, { idempotencyKey }) => {
      ledger.push(idempotencyKey)
      return { paid: amount }
    },
  })
  const stores = storesThatDieAt(await backend.connect(), (store, method) => store === 'executions' && method === 'finish')
  const dead = new AgentRuntime(new Extensions().setStores(stores), { leaseMs: 1 }, { ownerId: 'dead-process' })
  const model = mockModel([{ toolCalls: [{ name: 'pay', args: { amount: 5 }, id: 'p1' }] }, { text: 'paid (dead process)' }])
  void dead.run({ agent: { name: 'payer', model, tools: { pay } }, input: 'pay 5', sessionId })
  const reader = await backend.connect()
  await expect
    .poll(async () => (await reader.executions.listByRun((await reader.runs.listRuns({ sessionId }))[0]?.id ?? '')).map((execution) => execution.status), {
      timeout: 5_000,
    })
    .toEqual(['started'])
  // Past the dead process's lease (1 ms).
  await new Promise((resolve) => setTimeout(resolve, 20))
  const [run] = await reader.runs.listRuns({ sessionId })
  expect(run).toMatchObject({ status: 'running', lease: { owner: 'dead-process' } })
  const agent = (): AgentSpec => ({ name: 'payer', model: mockModel([{ text: 'done' }]), tools: { pay } })
  return { runId: run!.id, ledger, agent, reader }
}

/** The two "processes": runtimes with their own connections and owner ids. */
async function twoProcesses(backend: ResumeRaceBackend): Promise<[AgentRuntime, AgentRuntime]> {
  const [a, b] = [await backend.connect(), await backend.connect()]
  return [
    new AgentRuntime(new Extensions().setStores(a), {}, { ownerId: 'process-a' }),
    new AgentRuntime(new Extensions().setStores(b), {}, { ownerId: 'process-b' }),
  ]
}

/**
 * Registers the resume-race cases for a store backend: `backend()` gives a fresh one for each case (a new file, a
 * new schema).
 *
 * @example
 * describeResumeRace('sqlite', () => { const path = tempPath(); return { connect: () => openStores({ path }) } })
 */
export function describeResumeRace(name: string, backend: () => ResumeRaceBackend | Promise<ResumeRaceBackend>): void {
  describe(`${name}: two processes resume one crashed run at once`, () => {
    it('resume() from both: exactly one continues it, the other gets SessionBusyError having written nothing', async () => {
      const race = await backend()
      const { runId, ledger, agent, reader } = await crashedRun(race, 's')
      const [a, b] = await twoProcesses(race)
      const outcomes = await Promise.allSettled([a.resume(runId, { agent: agent() }), b.resume(runId, { agent: agent() })])
      expect(await toolResultsPerCall(reader, 's')).toEqual({ p1: 1 })
      const fulfilled = outcomes.filter((outcome) => outcome.status === 'fulfilled')
      const rejected = outcomes.filter((outcome) => outcome.status === 'rejected')
      expect(fulfilled).toHaveLength(1)
      expect(fulfilled[0]!.value).toMatchObject({ finishReason: 'stop', text: 'done' })
      expect(rejected).toHaveLength(1)
      const error = rejected[0]!.reason as Error
      expect(error).toBeInstanceOf(SessionBusyError)
      expect(error.message).toContain(runId)
      expect(error.message).toContain('another process')
      expect(ledger).toHaveLength(1)
      const events = await reader.runs.listEvents(runId)
      expect(events.filter((event) => event.type === 'run.resumed')).toHaveLength(1)
      // Numbers only grow; a hole is only the range the run.resumed declares discarded (what the crashed attempt may have shown live).
      expect(eventLogProblems(events, { finished: true })).toEqual([])
      expect(await reader.runs.getRun(runId)).toMatchObject({ status: 'completed', finishReason: 'stop' })
    })

    it('recover() from both: one resumes the run, the other lists it in busy (not in failed)', async () => {
      const race = await backend()
      const { runId, ledger, agent, reader } = await crashedRun(race, 's')
      const [a, b] = await twoProcesses(race)
      const results = await Promise.all([a.recover({ agents: [agent()] }), b.recover({ agents: [agent()] })].map(async (started) => (await started).done))
      expect(await toolResultsPerCall(reader, 's')).toEqual({ p1: 1 })
      expect(results.flatMap((result) => result.failed)).toEqual([])
      expect(results.flatMap((result) => result.resumed.map((output) => output.runId))).toEqual([runId])
      expect(results.flatMap((result) => result.busy)).toEqual([runId])
      expect(ledger).toHaveLength(1)
    })

    it('recover({ mode: "interrupt" }) and a resume at once: one of them claims the run, the other writes nothing', async () => {
      const race = await backend()
      const { runId, agent, reader } = await crashedRun(race, 's')
      const [a, b] = await twoProcesses(race)
      const [resumed, interrupting] = await Promise.allSettled([a.resume(runId, { agent: agent() }), b.recover({ mode: 'interrupt' })])
      expect(interrupting.status).toBe('fulfilled')
      const { interrupted, busy } = (interrupting as PromiseFulfilledResult<RecoverResult>).value
      if (resumed.status === 'fulfilled') {
        // a claimed it first: b leaves it to a.
        expect(resumed.value).toMatchObject({ finishReason: 'stop' })
        expect({ interrupted, busy }).toEqual({ interrupted: [], busy: [runId] })
        expect(await toolResultsPerCall(reader, 's')).toEqual({ p1: 1 })
        expect((await reader.runs.getRun(runId))?.status).toBe('completed')
      } else {
        // b interrupted it first: a's resume lost its claim and wrote nothing.
        expect(resumed.reason).toBeInstanceOf(SessionBusyError)
        expect({ interrupted, busy }).toEqual({ interrupted: [runId], busy: [] })
        expect(await toolResultsPerCall(reader, 's')).toEqual({})
        expect((await reader.runs.getRun(runId))?.status).toBe('interrupted')
      }
    })
  })
}
