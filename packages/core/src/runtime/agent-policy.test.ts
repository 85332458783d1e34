// An agent's policy (which may come with a request) tightens the runtime's guards and never lifts them: the
// runtime's deny list and budget still hold under an agent that allows the tool or sets another budget (found by
// a QA pass on the kernel: `rm` ran and 300 tokens passed a 10-token budget under an agent's own budget).
import { expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, mockModel } from '../index.js'

it("a tool on the runtime's deny list does not run under an agent policy that allows it", async () => {
  let removed = 0
  const rm = defineTool({ name: 'rm', description: 'rm', inputSchema: z.object({}), execute: () => ++removed })
  const ls = defineTool({ name: 'ls', description: 'ls', inputSchema: z.object({}), execute: () => 'a.txt' })
  const runtime = new AgentRuntime(new Extensions(), { tools: { deny: ['rm'] } })
  const model = mockModel([{ toolCalls: [{ name: 'rm', args: {} }] }, { text: 'done' }])
  const output = await runtime.run({ agent: { name: 'a', model, tools: { rm, ls }, policy: { tools: { allow: ['ls', 'rm'] } } }, input: 'clean up' })
  expect(removed).toBe(0)
  expect(model.calls[0]!.tools?.map((tool) => tool.name)).toEqual(['ls'])
  const result = output.messages.find((message) => message.role === 'tool')
  expect(result?.content[0]).toMatchObject({ toolName: 'rm', isError: true })
})

it("the runtime's total-token budget still ends a run whose agent sets a looser output budget", async () => {
  const runtime = new AgentRuntime(new Extensions(), { budget: { maxTotalTokens: 10 } })
  const model = mockModel(() => ({ toolCalls: [{ name: 'ls', args: {} }], usage: { inputTokens: 100, outputTokens: 50 } }))
  const ls = defineTool({ name: 'ls', description: 'ls', inputSchema: z.object({}), execute: () => 'a.txt' })
  const output = await runtime.run({ agent: { name: 'a', model, tools: { ls }, policy: { budget: { maxOutputTokens: 10_000 } } }, input: 'list' })
  expect(output.finishReason).toBe('budget')
  expect(model.calls).toHaveLength(1)
})
