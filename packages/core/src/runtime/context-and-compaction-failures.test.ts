// A context adapter that throws fails the run naming it; the compaction breaker is set from the policy; a failing
// compaction strategy is reported by a compaction.failed event (redacted).
import { describe, expect, it } from 'vitest'
import { AgentRuntime, type AgentEvent, ContextOverflowError, type CompactionStrategy, Extensions, mockModel } from '../index.js'

async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = []
  for await (const event of events) all.push(event)
  return all
}

const failingStrategy: CompactionStrategy = {
  name: 'flaky-summary',
  compact: async () => {
    throw new Error('summarizer down; token sk-secretsecretsecret123456')
  },
}

describe('context adapter failures', () => {
  it('fail the run with code context_adapter and a message naming the adapter', async () => {
    const extensions = new Extensions()
    extensions.context.push({
      name: 'crm-profile',
      apply: () => {
        throw new Error('CRM timed out')
      },
    })
    const output = await new AgentRuntime(extensions).run({ agent: { name: 'a', model: mockModel([{ text: 'never' }]) }, input: 'hi' })
    expect(output.finishReason).toBe('error')
    expect(output.error?.code).toBe('context_adapter')
    expect(output.error?.message).toContain('"crm-profile"')
    expect(output.error?.message).toContain('CRM timed out')
  })

  it('an asynchronous adapter that rejects is named too', async () => {
    const extensions = new Extensions()
    extensions.context.push({
      name: 'vector-recall',
      apply: async () => {
        throw new Error('index offline')
      },
    })
    const output = await new AgentRuntime(extensions).run({ agent: { name: 'a', model: mockModel([{ text: 'never' }]) }, input: 'hi' })
    expect(output.error).toMatchObject({ code: 'context_adapter' })
    expect(output.error?.message).toContain('"vector-recall"')
  })
})

describe('compaction failures', () => {
  it('the circuit breaker takes its threshold and cool-down from the policy', () => {
    const extensions = new Extensions()
    extensions.compaction = failingStrategy
    const runtime = new AgentRuntime(extensions, { compaction: { threshold: 0.8, target: 0.5, failureThreshold: 1, cooldownMs: 120_000 } })
    expect(runtime.policy.compaction).toMatchObject({ failureThreshold: 1, cooldownMs: 120_000 })
  })

  it('a failing strategy emits compaction.failed (redacted), truncation is used, and the breaker opens at the policy threshold', async () => {
    const extensions = new Extensions()
    extensions.compaction = failingStrategy
    const runtime = new AgentRuntime(extensions, { compaction: { threshold: 0.8, target: 0.5, failureThreshold: 1, cooldownMs: 120_000 } })
    let sessionId: string | undefined
    for (let index = 0; index < 6; index++) {
      const answer = mockModel([{ text: `answer ${index} ${'lorem ipsum '.repeat(200)}` }])
      sessionId = (
        await runtime.run({ agent: { name: 'a', model: answer }, input: `question ${index} ${'dolor sit '.repeat(200)}`, ...(sessionId && { sessionId }) })
      ).sessionId
    }
    const model = mockModel((request) =>
      JSON.stringify(request.messages).length > 20_000 ? { error: new ContextOverflowError('prompt is too long', { status: 400 }) } : { text: 'fits now' },
    )
    const stream = runtime.stream({ agent: { name: 'a', model }, input: 'final question', sessionId })
    const events = await drain(stream)
    expect((await stream.result).text).toBe('fits now')
    const failed = events.find((event) => event.type === 'compaction.failed')
    expect(failed).toMatchObject({ type: 'compaction.failed', strategy: 'flaky-summary', circuitOpen: true, error: { code: 'compaction' } })
    expect(JSON.stringify(failed)).toContain('summarizer down')
    expect(JSON.stringify(failed)).not.toContain('sk-secretsecretsecret123456')
    expect(events.find((event) => event.type === 'compaction.applied')).toMatchObject({ strategy: 'truncate' })
    expect(runtime.compaction.circuitOpen).toBe(true)
  })
})
