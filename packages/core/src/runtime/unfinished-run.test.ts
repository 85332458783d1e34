// A run that a crash left unfinished keeps its session: a new run there is refused (SessionBusyError, nothing
// written) until the old one is resumed or cancelled. Found by QA on PostgreSQL, where a session's lease expired
// before the dead worker's job did and a later run of the session interleaved its messages with the dead one's.
import { expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, memoryStores, mockModel, SessionBusyError } from '../index.js'

it('a new run on a session whose last run is unfinished (running, then interrupted) is refused until that run is cancelled', async () => {
  const stores = memoryStores()
  // Two runtimes on the same stores, each with its own gate: like two processes whose shared lease has expired.
  let started!: () => void
  const entered = new Promise<void>((resolve) => (started = resolve))
  const hang = defineTool({ name: 'hang', description: 'h', inputSchema: z.object({}), execute: () => (started(), new Promise<never>(() => {})) })
  const crashed = new AgentRuntime(new Extensions().setStores(stores))
  // The later process has neither the old run's model nor its tool registered: it can still cancel that run.
  const later = new AgentRuntime(new Extensions().setStores(stores))
  const stuck = crashed.run({ agent: { name: 'a', model: mockModel([{ toolCalls: [{ name: 'hang', args: {} }] }]), tools: { hang } }, input: 'first', sessionId: 'ses_shared' })
  void stuck
  await entered
  const [owner] = await stores.runs.listRuns({ sessionId: 'ses_shared' })
  expect(owner?.status).toBe('running')
  const entriesBefore = (await stores.sessions.listEntries('ses_shared')).length
  const model = mockModel([{ text: 'second answer' }])
  const agent = { name: 'a', model, tools: { hang } }
  const refused = later.run({ agent, input: 'second', sessionId: 'ses_shared' })
  await expect(refused).rejects.toBeInstanceOf(SessionBusyError)
  await expect(refused).rejects.toThrow(`unfinished run "${owner!.id}" (running`)
  // Nothing was written: no run record, no entry.
  expect(await stores.runs.listRuns({ sessionId: 'ses_shared' })).toHaveLength(1)
  expect(await stores.sessions.listEntries('ses_shared')).toHaveLength(entriesBefore)
  // As recover({ mode: 'interrupt' }) leaves it: still refused, until it is cancelled (its open call gets a result).
  await stores.runs.updateRun(owner!.id, { status: 'interrupted', lease: undefined })
  await expect(later.run({ agent, input: 'second', sessionId: 'ses_shared' })).rejects.toThrow('(interrupted')
  expect(await later.cancel(owner!.id)).toBe(true)
  const output = await later.run({ agent, input: 'second', sessionId: 'ses_shared' })
  expect(output).toMatchObject({ finishReason: 'stop', text: 'second answer' })
  const roles = model.calls[0]!.messages.map((message) => message.role)
  expect(roles).toEqual(['user', 'assistant', 'tool', 'user'])
})
