// recover() after a crash goes through every run a dead process left: one it cannot resume does not stop the others.
import { expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, memoryStores, mockModel, type AgentSpec } from '../index.js'

it('a run whose agent cannot be rebuilt is listed in failed, with its error, and the other runs are recovered all the same', async () => {
  const state = { dead: true }
  const wait = defineTool({
    name: 'wait',
    description: 'w',
    inputSchema: z.object({}),
    idempotent: true,
    execute: () => (state.dead ? new Promise<string>(() => {}) : 'waited'),
  })
  const agent = (name: string): AgentSpec => ({
    name,
    model: mockModel((request) =>
      request.messages.some((message) => message.role === 'tool') ? { text: `${name} done` } : { toolCalls: [{ name: 'wait', args: {} }] },
    ),
    tools: { wait },
  })
  const stores = memoryStores()
  const first = new AgentRuntime(new Extensions().setStores(stores), { leaseMs: 1 })
  void first.run({ agent: agent('known'), input: 'go', sessionId: 'a' })
  void first.run({ agent: agent('renamed'), input: 'go', sessionId: 'b' })
  for (
    let tries = 0;
    (await stores.executions.listByRun((await stores.runs.listRuns())[0]?.id ?? '')).length +
      (await stores.executions.listByRun((await stores.runs.listRuns())[1]?.id ?? '')).length <
    2;
    tries++
  ) {
    if (tries > 500) throw new Error('the runs never reached their tool')
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  state.dead = false
  const second = new AgentRuntime(new Extensions().setStores(stores))
  // Only "known" is given: "renamed" uses a tool that is in no registry.
  const { resumed, failed, busy } = await (await second.recover({ agents: [agent('known')] })).done
  expect(resumed.map((output) => output.text)).toEqual(['known done'])
  expect(busy).toEqual([])
  const [renamed] = await stores.runs.listRuns({ sessionId: 'b' })
  expect(failed).toEqual([{ runId: renamed!.id, error: expect.objectContaining({ message: expect.stringContaining('cannot rebuild agent "renamed"') }) }])
  // Left as it was: resuming it with its agent continues it.
  expect((await stores.runs.getRun(renamed!.id))?.status).toBe('running')
  expect(await second.resume(renamed!.id, { agent: agent('renamed') })).toMatchObject({ finishReason: 'stop', text: 'renamed done' })
})
