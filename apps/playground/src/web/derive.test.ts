// The timeline derived from a real run's event log: a step that finishes twice (before its approval, then after its
// tools ran) keeps both parts instead of showing the second, tool-only part alone ("<1 ms · 0 in · 0 out").
import { AgentRuntime, defineTool, mockModel } from '@spindle/core'
import { expect, it } from 'vitest'
import { z } from 'zod'
import { timeline } from './derive.js'

it('a step finished again after its approval adds up its duration and tokens', async () => {
  const runtime = new AgentRuntime()
  const remove = defineTool({ name: 'remove', description: 'r', inputSchema: z.object({}), needsApproval: true, execute: async () => 'removed' })
  const model = mockModel([
    { toolCalls: [{ name: 'remove', args: {} }], usage: { inputTokens: 77, outputTokens: 12 }, delayMs: 30 },
    { text: 'done', usage: { inputTokens: 90, outputTokens: 3 } },
  ])
  const agent = { name: 'a', model, tools: { remove } }
  const suspended = await runtime.run({ agent, input: 'remove it' })
  const [call] = (await runtime.snapshots.latest(suspended.runId))!.state.pending as Array<{ callId: string }>
  await runtime.approve(suspended.runId, call!.callId, true)
  await runtime.resume(suspended.runId, { agent })
  const events = await runtime.runs.listEvents(suspended.runId)
  const finished = events.filter((event) => event.type === 'step.finished' && event.step === 1)
  expect(finished).toHaveLength(2)
  const [first] = timeline(events).steps
  const total = finished.reduce((sum, event) => sum + (event.type === 'step.finished' ? event.durationMs : 0), 0)
  expect(first!.durationMs).toBe(total)
  expect(first!.durationMs).toBeGreaterThanOrEqual(25)
  expect(first!.delta).toEqual({ inputTokens: 77, outputTokens: 12 })
  expect(timeline(events).steps[1]!.delta).toMatchObject({ inputTokens: 90, outputTokens: 3 })
})
