import { AgentRuntime, Extensions, memoryStores, mockModel, type MockModel, type Stores } from '@spindle/core'
import { describeContextAdapter } from '@spindle/testing'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { workingMemory, workingMemoryMetadataKey } from './index.js'

/** Core's memory stores, one set per name: runtimes given the same name share one database. */
const databases = new Map<string, Stores>()
const storesAt = (path: string): Stores => databases.get(path) ?? databases.set(path, memoryStores()).get(path)!

const schema = z.object({
  name: z.string().optional(),
  units: z.enum(['metric', 'imperial']).optional(),
  openTasks: z.array(z.string()).optional(),
})

const systemOf = (model: MockModel, index: number) => String(model.calls[index]?.messages[0]?.content ?? '')

describe('workingMemory', () => {
  it('the model updates the record through the tool; later steps and runs see it; it is kept in the session metadata', async () => {
    const memory = workingMemory({ schema, initial: { units: 'metric' } })
    const extensions = new Extensions().setStores(storesAt('session.db')).use(memory)
    const runtime = new AgentRuntime(extensions)
    const model = mockModel([
      { toolCalls: [{ name: 'update_working_memory', args: { name: 'Ada', openTasks: ['book flight'] } }] },
      { text: 'Nice to meet you, Ada.' },
      { text: 'You are Ada.' },
    ])
    const first = await runtime.run({ agent: { name: 'a', model }, input: 'I am Ada, please book a flight.' })
    expect(systemOf(model, 0)).toContain('Working memory')
    expect(systemOf(model, 0)).toContain('"units": "metric"')
    expect(model.calls[0]!.tools?.map((tool) => tool.name)).toContain('update_working_memory')
    // The step after the update already shows it.
    expect(systemOf(model, 1)).toContain('"name": "Ada"')
    const session = await runtime.sessions.getSession(first.sessionId)
    expect(session?.metadata[workingMemoryMetadataKey]).toEqual({ units: 'metric', name: 'Ada', openTasks: ['book flight'] })
    await runtime.run({ agent: { name: 'a', model }, input: 'Who am I?', sessionId: first.sessionId })
    expect(systemOf(model, 2)).toContain('"book flight"')
    expect(await memory.get(first.sessionId)).toEqual({ units: 'metric', name: 'Ada', openTasks: ['book flight'] })
  })

  it('an update that breaks the schema is refused with a tool error and nothing is written', async () => {
    const memory = workingMemory({ schema })
    const runtime = new AgentRuntime(new Extensions().use(memory))
    const model = mockModel([{ toolCalls: [{ name: 'update_working_memory', args: { units: 'furlongs' } }] }, { text: 'ok' }])
    const output = await runtime.run({ agent: { name: 'a', model }, input: 'use furlongs' })
    const result = JSON.stringify(model.calls[1]!.messages.at(-1))
    expect(result).toContain('isError')
    expect(await memory.get(output.sessionId)).toEqual({})
  })

  it('resource scope shares one record across the sessions of a resource, durably, and keeps resources apart', async () => {
    const path = 'resource.db'
    const model = mockModel([
      { toolCalls: [{ name: 'update_working_memory', args: { units: 'imperial' } }] },
      { text: 'Noted.' },
      { text: 'Imperial it is.' },
      { text: 'Hello stranger.' },
    ])
    const runtime = new AgentRuntime(new Extensions().setStores(storesAt(path)).use(workingMemory({ schema, scope: 'resource' })))
    await runtime.run({ agent: { name: 'a', model }, input: 'I prefer imperial units.', resourceId: 'user-1' })
    // Another process (new plugin instance, new runtime) on the same database, a new session of the same user.
    const later = new AgentRuntime(new Extensions().setStores(storesAt(path)).use(workingMemory({ schema, scope: 'resource' })))
    await later.run({ agent: { name: 'a', model }, input: 'Distance to Paris?', resourceId: 'user-1' })
    expect(systemOf(model, 2)).toContain('"units": "imperial"')
    await later.run({ agent: { name: 'a', model }, input: 'Hi', resourceId: 'user-2' })
    expect(systemOf(model, 3)).toContain('{} (empty)')
  })

  it('parallel updates in one step are all kept (each merges into the record the previous one wrote)', async () => {
    for (const scope of ['session', 'resource'] as const) {
      const memory = workingMemory({ schema, scope })
      const runtime = new AgentRuntime(new Extensions().use(memory))
      const model = mockModel([
        {
          toolCalls: [
            { name: 'update_working_memory', args: { name: 'Ada' } },
            { name: 'update_working_memory', args: { units: 'imperial' } },
            { name: 'update_working_memory', args: { openTasks: ['book flight'] } },
          ],
        },
        { text: 'Noted.' },
      ])
      const output = await runtime.run({ agent: { name: 'a', model }, input: 'I am Ada, imperial please, book a flight.', resourceId: 'user-parallel' })
      expect(output.finishReason).toBe('stop')
      expect(await memory.get(output.sessionId), scope).toEqual({ name: 'Ada', units: 'imperial', openTasks: ['book flight'] })
    }
  })

  it('resource scope: two processes updating different fields of one resource at the same moment both keep theirs', async () => {
    const path = 'two-processes.db'
    // Two processes: each its own connection to the file and its own plugin instance (its own in-process queue).
    const processes = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const runtime = new AgentRuntime(new Extensions().setStores(storesAt(path)))
        await runtime.extensions.ready()
        const stores = { sessions: runtime.sessions, embeddings: runtime.embeddings }
        const session = await stores.sessions.createSession({ id: `ses_${name}`, resourceId: 'user-shared' })
        return { memory: workingMemory({ schema, scope: 'resource', stores }), sessionId: session.id, stores }
      }),
    )
    const call = (index: number, patch: object) => {
      const { memory, sessionId } = processes[index]!
      const context = {
        runId: 'run_x',
        sessionId,
        step: 1,
        callId: `c${index}`,
        toolName: 'update_working_memory',
        idempotencyKey: `k${index}`,
        signal: new AbortController().signal,
        runtime: undefined,
        artifacts: undefined as never,
      }
      return memory.tool.execute(patch as never, context)
    }
    await Promise.all([call(0, { name: 'Ada' }), call(1, { units: 'imperial' })])
    for (const { memory, sessionId, stores } of processes) expect(await memory.get(sessionId, stores)).toEqual({ name: 'Ada', units: 'imperial' })
    // The same field from both: the last write is the value, whole.
    await call(0, { openTasks: ['a'] })
    await call(1, { openTasks: ['b', 'c'] })
    expect(await processes[0]!.memory.get(processes[0]!.sessionId)).toEqual({ name: 'Ada', units: 'imperial', openTasks: ['b', 'c'] })
  })

  it('resource scope reads a record written whole by an earlier version, under the fields written since', async () => {
    const runtime = new AgentRuntime()
    const stores = { sessions: runtime.sessions, embeddings: runtime.embeddings }
    const session = await stores.sessions.createSession({ resourceId: 'user-legacy' })
    await stores.embeddings.upsert([
      {
        id: 'spindle:working-memory:user-legacy',
        vector: [1],
        namespace: 'spindle:working-memory',
        metadata: { resourceId: 'user-legacy', value: { name: 'Ada', units: 'metric' } },
      },
    ])
    const memory = workingMemory({ schema, scope: 'resource', stores })
    expect(await memory.get(session.id)).toEqual({ name: 'Ada', units: 'metric' })
    const context = {
      runId: 'run_x',
      sessionId: session.id,
      step: 1,
      callId: 'c',
      toolName: 'update_working_memory',
      idempotencyKey: 'k',
      signal: new AbortController().signal,
      runtime: undefined,
      artifacts: undefined as never,
    }
    await memory.tool.execute({ units: 'imperial' } as never, context)
    expect(await workingMemory({ schema, scope: 'resource', stores }).get(session.id)).toEqual({ name: 'Ada', units: 'imperial' })
  })

  it('reading a session before it exists does not pin it to session scope', async () => {
    const memory = workingMemory({ schema, scope: 'resource' })
    const runtime = new AgentRuntime(new Extensions().use(memory))
    const model = mockModel([{ toolCalls: [{ name: 'update_working_memory', args: { units: 'imperial' } }] }, { text: 'Noted.' }, { text: 'Hi.' }])
    // Looked up before the run creates the session (with its resourceId).
    expect(await memory.get('ses_early', { sessions: runtime.sessions, embeddings: runtime.embeddings })).toEqual({})
    await runtime.run({ agent: { name: 'a', model }, input: 'I prefer imperial units.', sessionId: 'ses_early', resourceId: 'user-early' })
    await runtime.run({ agent: { name: 'a', model }, input: 'Hello again', resourceId: 'user-early' })
    expect(systemOf(model, 2)).toContain('"units": "imperial"')
  })
})

describeContextAdapter(() => workingMemory({ schema }).adapter)
