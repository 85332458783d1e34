// A run that starts at once is created running, with its start time and lease, in one write; a RunStore that
// predates NewRun's startedAt and lease (it ignores them) still ends up with both, through an update.
import { describe, expect, it } from 'vitest'
import { AgentRuntime, Extensions, memoryStores, mockModel, type NewRun, type RunPatch, type Stores } from '../index.js'

/** The memory stores, with every run-store write recorded; `legacy` drops NewRun's startedAt and lease. */
function recordingStores(legacy: boolean): { stores: Stores; writes: Array<{ method: string; value: NewRun | RunPatch }> } {
  const stores = memoryStores()
  const writes: Array<{ method: string; value: NewRun | RunPatch }> = []
  const runs = stores.runs
  const createRun = runs.createRun.bind(runs)
  const updateRun = runs.updateRun.bind(runs)
  runs.createRun = (run) => {
    writes.push({ method: 'createRun', value: run })
    if (!legacy) return createRun(run)
    const { startedAt: _startedAt, lease: _lease, ...older } = run
    return createRun(older)
  }
  runs.updateRun = (id, patch) => {
    writes.push({ method: 'updateRun', value: patch })
    return updateRun(id, patch)
  }
  return { stores, writes }
}

describe('a started run record', () => {
  it('is created running with startedAt and this runtime’s lease: no separate update before the run ends', async () => {
    const { stores, writes } = recordingStores(false)
    const runtime = new AgentRuntime(new Extensions().setStores(stores), { leaseMs: 60_000 }, { ownerId: 'runtime-a' })
    const before = Date.now()
    const output = await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'hi' }]) }, input: 'go' })
    expect(output.finishReason).toBe('stop')
    const created = writes[0]!
    expect(created.method).toBe('createRun')
    expect(created.value).toMatchObject({ status: 'running', lease: { owner: 'runtime-a' } })
    expect((created.value as NewRun).startedAt).toBeGreaterThanOrEqual(before)
    expect((created.value as NewRun).lease!.expiresAt).toBeGreaterThanOrEqual(before + 60_000)
    // The only update is the end (written with the last commit, through the store's own method here).
    const updates = writes.filter((write) => write.method === 'updateRun')
    expect(updates.every((write) => (write.value as RunPatch).status === 'completed')).toBe(true)
    const record = await stores.runs.getRun(output.runId)
    expect(record).toMatchObject({ status: 'completed', startedAt: (created.value as NewRun).startedAt })
    expect(record!.lease).toBeUndefined()
  })

  it('gets startedAt and its lease from an update when the store ignored them in createRun', async () => {
    const { stores, writes } = recordingStores(true)
    const runtime = new AgentRuntime(new Extensions().setStores(stores), { leaseMs: 60_000 }, { ownerId: 'runtime-b' })
    let seen: unknown
    const model = mockModel(async () => {
      // What the store holds while the run is running (its only run).
      seen = (await stores.runs.listRuns())[0]
      return { text: 'hi' }
    })
    const output = await runtime.run({ agent: { name: 'b', model }, input: 'go' })
    expect(output.finishReason).toBe('stop')
    expect(writes[1]).toMatchObject({ method: 'updateRun', value: { lease: { owner: 'runtime-b' } } })
    expect(seen).toMatchObject({ status: 'running', lease: { owner: 'runtime-b' } })
    expect(typeof (seen as { startedAt?: number }).startedAt).toBe('number')
  })
})
