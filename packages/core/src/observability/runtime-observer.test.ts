// RuntimeObserver: synchronous, complete, ordered; a throwing observer never breaks a run.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, mockModel, type AgentEvent } from '../index.js'

describe('runtime observers', () => {
  it('see every event of every run in order, identical to the stream, sub-agents included', async () => {
    const seen: AgentEvent[] = []
    const extensions = new Extensions().addObserver({ onEvent: (event) => seen.push(event) })
    const runtime = new AgentRuntime(extensions)
    const echo = defineTool({ name: 'echo', description: 'e', inputSchema: z.object({}), execute: () => 'ok' })
    const stream = runtime.stream({
      agent: { name: 'a', model: mockModel([{ toolCalls: [{ name: 'echo', args: {} }] }, { text: 'done' }]), tools: { echo } },
      input: 'x',
    })
    const streamed: AgentEvent[] = []
    for await (const event of stream) streamed.push(event)
    expect(seen).toEqual(streamed)
    expect(seen.map((event) => event.seq)).toEqual(seen.map((_, index) => index + 1))
  })

  it('an observer that throws is dropped for that event; the run and the other observers go on', async () => {
    const seen: string[] = []
    const extensions = new Extensions()
      .addObserver({
        onEvent: () => {
          throw new Error('observer bug')
        },
      })
      .addObserver({ onEvent: (event) => seen.push(event.type) })
    const runtime = new AgentRuntime(extensions)
    const output = await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'fine' }]) }, input: 'x' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'fine' })
    expect(seen[0]).toBe('run.started')
    expect(seen.at(-1)).toBe('run.finished')
  })
})
