// Prices and cost: lookup (exact, bare, dated snapshot), cost per step, and a cost budget that ends a run.
import { describe, expect, it } from 'vitest'
import { AgentRuntime, costOf, defineTool, Extensions, findModelPrice, mockModel, priceTable, priceUsage } from '../index.js'
import { z } from 'zod'

describe('price table', () => {
  it('finds a model by provider:modelId, by bare id, and a dated snapshot by its base id (longest match)', () => {
    expect(findModelPrice(priceTable, 'openai', 'gpt-4o')).toBe(priceTable['openai:gpt-4o'])
    expect(findModelPrice(priceTable, 'openai', 'gpt-4o-mini-2024-07-18')).toBe(priceTable['openai:gpt-4o-mini'])
    expect(findModelPrice(priceTable, 'anthropic', 'claude-sonnet-4-20250514')).toBe(priceTable['anthropic:claude-sonnet-4'])
    expect(findModelPrice(priceTable, 'anthropic', 'gpt-4o')).toBeUndefined()
    expect(findModelPrice({ 'my-model': { input: 1, output: 1 } }, 'any', 'my-model')).toEqual({ input: 1, output: 1 })
    expect(findModelPrice(priceTable, 'openai', 'gpt-4oo')).toBeUndefined()
    // Dated snapshots of bare entries and of other providers' entries; a provider whose name prefixes another's.
    const table = {
      'acme:m': { input: 1, output: 1 },
      'acme:m-large': { input: 2, output: 2 },
      m: { input: 3, output: 3 },
      'acmex:m-large': { input: 4, output: 4 },
      'acme:': { input: 5, output: 5 },
    }
    expect(findModelPrice(table, 'acme', 'm-large-2025')).toBe(table['acme:m-large'])
    expect(findModelPrice(table, 'acme', 'm-small-2025')).toBe(table['acme:m'])
    expect(findModelPrice(table, 'other', 'm-2025')).toBe(table.m)
    expect(findModelPrice(table, 'acmex', 'm-large-1')).toBe(table['acmex:m-large'])
    expect(findModelPrice(table, 'acm', 'm-large-1')).toBe(table.m)
    expect(findModelPrice(table, 'acme', 'mx')).toBeUndefined()
    expect(findModelPrice(table, 'acme', '-1')).toBeUndefined()
  })

  it('bills cached input at the cached price and keeps a cost the provider reported', () => {
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 0 }, { input: 2, output: 8 })).toBe(2)
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 500_000, cachedInputTokens: 400_000 }, { input: 2, cachedInput: 0.5, output: 8 })).toBeCloseTo(
      1.2 + 0.2 + 4,
    )
    expect(priceUsage({ inputTokens: 10, outputTokens: 10, costUsd: 7 }, priceTable, { provider: 'openai', modelId: 'gpt-4o' })?.costUsd).toBe(7)
    expect(priceUsage({ inputTokens: 10, outputTokens: 10 }, priceTable, { provider: 'mock', modelId: 'unknown' })).toEqual({
      inputTokens: 10,
      outputTokens: 10,
    })
  })

  it('fills usage.costUsd per step and sums it per run; extensions.prices is user-extendable', async () => {
    const extensions = new Extensions()
    extensions.prices['mock:priced'] = { input: 1, output: 2 }
    const runtime = new AgentRuntime(extensions)
    const echo = defineTool({ name: 'echo', description: 'e', inputSchema: z.object({}), execute: () => 'ok' })
    const model = mockModel(
      [
        { toolCalls: [{ name: 'echo', args: {} }], usage: { inputTokens: 1000, outputTokens: 100 } },
        { text: 'done', usage: { inputTokens: 2000, outputTokens: 300 } },
      ],
      { modelId: 'priced' },
    )
    const stream = runtime.stream({ agent: { name: 'a', model, tools: { echo } }, input: 'go' })
    const steps: number[] = []
    for await (const event of stream) if (event.type === 'step.finished') steps.push(event.usage.costUsd ?? 0)
    const output = await stream.result
    expect(steps[0]).toBeCloseTo((1000 * 1 + 100 * 2) / 1e6)
    expect(output.usage.costUsd).toBeCloseTo((3000 * 1 + 400 * 2) / 1e6)
    expect((await runtime.runs.getRun(output.runId))?.usage.costUsd).toBeCloseTo(output.usage.costUsd!)
  })

  it('policy.budget.maxCostUsd ends the run with finish reason `budget` before the next model call', async () => {
    const extensions = new Extensions()
    extensions.prices['mock:expensive'] = { input: 10_000, output: 10_000 }
    const runtime = new AgentRuntime(extensions, { budget: { maxCostUsd: 0.5 } })
    const echo = defineTool({ name: 'echo', description: 'e', inputSchema: z.object({ n: z.number() }), execute: ({ n }) => n })
    const model = mockModel((_, index) => ({ toolCalls: [{ name: 'echo', args: { n: index } }], usage: { inputTokens: 20, outputTokens: 5 } }), {
      modelId: 'expensive',
    })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'loop' })
    // Each step costs 0.25 USD: the run stops after the second step.
    expect(output.finishReason).toBe('budget')
    expect(output.steps).toBe(2)
    expect(output.usage.costUsd).toBeCloseTo(0.5)
    expect(model.calls).toHaveLength(2)
    expect((await runtime.runs.getRun(output.runId))?.finishReason).toBe('budget')
  })

  it('policy.budget.maxCostUsd on a model without a price fails the run with a ConfigurationError instead of never stopping', async () => {
    const runtime = new AgentRuntime(new Extensions(), { budget: { maxCostUsd: 0.01 }, maxSteps: 10 })
    const echo = defineTool({ name: 'echo', description: 'e', inputSchema: z.object({ n: z.number() }), execute: ({ n }) => n })
    const model = mockModel((_, index) => ({ toolCalls: [{ name: 'echo', args: { n: index } }], usage: { inputTokens: 100_000, outputTokens: 100_000 } }), {
      provider: 'custom',
      modelId: 'my-llm',
    })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'loop', sessionId: 'ses_unpriced' })
    expect(output.finishReason).toBe('error')
    expect(output.error).toMatchObject({ code: 'configuration' })
    expect(output.error?.message).toContain('custom:my-llm has no price')
    expect(model.calls).toHaveLength(1)
    // Nothing of the unpriced answer is left behind: no tool call without its result.
    const entries = await runtime.sessions.listEntries('ses_unpriced')
    expect(entries.map((entry) => entry.kind === 'message' && entry.message.role)).toEqual(['user'])
    // A provider that reports its cost itself is enough.
    const reported = mockModel([{ text: 'cheap', usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.001 } }], { provider: 'custom', modelId: 'my-llm' })
    expect(await runtime.run({ agent: { name: 'a', model: reported }, input: 'hi' })).toMatchObject({ finishReason: 'stop', text: 'cheap' })
  })
})
