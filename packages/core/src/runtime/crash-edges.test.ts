// Resume after a crash at the edges of a run's durable writes (found by the multi-process SQLite crash test):
// right after a snapshot, right after the run record is created, right after the end is logged.
import { describe, expect, it } from 'vitest'
import { AgentRuntime, eventLogProblems, Extensions, memoryStores, mockModel, type Stores } from '../index.js'

/** Stores whose calls all hang once `trigger` says so (after the triggering call completed) — a dead process. */
function dieAfter(stores: Stores, trigger: (store: string, method: string, count: number, args: unknown[]) => boolean): Stores {
  let dead = false
  const counts = new Map<string, number>()
  const wrap = <T extends object>(name: string, store: T): T =>
    new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (typeof value !== 'function') return value
        return async (...args: unknown[]) => {
          if (dead) return new Promise(() => {})
          const key = `${name}.${String(property)}`
          const count = (counts.get(key) ?? 0) + 1
          counts.set(key, count)
          const result = await value.apply(target, args)
          if (trigger(name, String(property), count, args)) dead = true
          return result
        }
      },
    })
  return Object.fromEntries(Object.entries(stores).map(([name, store]) => [name, wrap(name, store)])) as unknown as Stores
}

async function crashAndResume(trigger: Parameters<typeof dieAfter>[1], script: Parameters<typeof mockModel>[0]) {
  const stores = memoryStores()
  const first = new AgentRuntime(new Extensions().setStores(dieAfter(stores, trigger)), { leaseMs: 1 })
  void first.run({ agent: { name: 'writer', model: mockModel(script) }, input: 'write', sessionId: 's' })
  await new Promise((resolve) => setTimeout(resolve, 30))
  const [run] = await stores.runs.listRuns()
  expect(run?.status).toBe('running')
  const model = mockModel(script)
  const second = new AgentRuntime(new Extensions().setStores(stores))
  const { resumed } = await (await second.recover({ agents: [{ name: 'writer', model }] })).done
  const events = await stores.runs.listEvents(run!.id)
  const entries = await stores.sessions.listEntries('s')
  return { output: resumed[0]!, events, entries, model, run: (await stores.runs.getRun(run!.id))! }
}

describe('resume at the edges of durable writes', () => {
  it('a crash right after a snapshot is saved (before its event is logged): the log has no hole run.resumed does not declare', async () => {
    const { output, events } = await crashAndResume((store, method, count) => store === 'snapshots' && method === 'save' && count === 1, [{ text: 'one' }])
    expect(output.text).toBe('one')
    expect(eventLogProblems(events, { finished: true })).toEqual([])
    expect(events.find((event) => event.type === 'run.resumed')).toMatchObject({ discarded: { from: expect.any(Number) } })
    expect(events.filter((event) => event.type === 'run.started')).toHaveLength(1)
    expect(events.at(-1)?.type).toBe('run.finished')
  })

  it('a crash after the run is created, before its input is appended: the input is appended once on resume', async () => {
    const { output, events, entries, model } = await crashAndResume((store, method) => store === 'runs' && method === 'createRun', [{ text: 'answered' }])
    expect(output.text).toBe('answered')
    expect(entries.map((entry) => entry.kind === 'message' && entry.message.role)).toEqual(['user', 'assistant'])
    expect(model.calls[0]?.messages.at(-1)).toEqual({ role: 'user', content: 'write' })
    expect(events.map((event) => event.type).slice(0, 2)).toEqual(['run.started', 'run.resumed'])
    // Killed before anything was reserved: nothing was delivered live, nothing is discarded.
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1))
  })

  it('a crash after the end is logged, before the run record says so: resume records it without calling the model', async () => {
    const { output, events, model, run } = await crashAndResume(
      (store, method, _count, args) => store === 'runs' && method === 'appendEvents' && JSON.stringify(args).includes('"run.finished"'),
      [{ text: 'finished' }],
    )
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', finishReason: 'stop' })
    expect(events.filter((event) => event.type === 'run.finished')).toHaveLength(1)
    expect(model.calls).toHaveLength(0)
    expect(run).toMatchObject({ status: 'completed', finishReason: 'stop' })
    expect(run.lease).toBeUndefined()
    expect(output).toMatchObject({ finishReason: 'stop', text: 'finished' })
  })
})
