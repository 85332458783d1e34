// sessionUsage: per-session totals summed from the run records.
import { describe, expect, it } from 'vitest'
import { AgentRuntime, Extensions, mockModel, sessionUsage, type RunRecord, type RunStore } from '../index.js'

describe('sessionUsage', () => {
  it('sums tokens (input, output, cached, reasoning) and cost over every run of a session, across pages', async () => {
    const extensions = new Extensions()
    extensions.prices['mock:m'] = { input: 1, output: 1 }
    const runtime = new AgentRuntime(extensions)
    const model = mockModel(
      (_, index) => ({ text: `answer ${index}`, usage: { inputTokens: 100, outputTokens: 10, cachedInputTokens: 40, reasoningTokens: 3 } }),
      { modelId: 'm' },
    )
    for (let index = 0; index < 3; index++) await runtime.run({ agent: { name: 'a', model }, input: `q${index}`, sessionId: 'ses_totals' })
    await runtime.run({ agent: { name: 'a', model }, input: 'elsewhere', sessionId: 'ses_other' })
    const totals = await sessionUsage(runtime.runs, 'ses_totals', { pageSize: 2 })
    expect(totals.runs).toBe(3)
    expect(totals.usage).toMatchObject({ inputTokens: 300, outputTokens: 30, cachedInputTokens: 120, reasoningTokens: 9, totalTokens: 330 })
    expect(totals.usage.costUsd).toBeCloseTo(330 / 1e6)
    expect((await sessionUsage(runtime.runs, 'ses_none')).usage).toMatchObject({ inputTokens: 0, outputTokens: 0 })
  })

  it('pages through runs created in the same millisecond without skipping or double counting any', async () => {
    // Five runs sharing one createdAt, listed the way every RunStore must (newest first, `before` exclusive).
    const records = [1000, 1000, 1000, 1000, 1000, 999].map(
      (createdAt, index) => ({ id: `r${index}`, sessionId: 's', createdAt, usage: { inputTokens: 1, outputTokens: 0 } }) as RunRecord,
    )
    const listRuns: RunStore['listRuns'] = async (options = {}) =>
      records.filter((run) => options.before === undefined || run.createdAt < options.before).slice(0, options.limit)
    const totals = await sessionUsage({ listRuns } as RunStore, 's', { pageSize: 2 })
    expect(totals.runs).toBe(6)
    expect(totals.usage.inputTokens).toBe(6)
  })
})
