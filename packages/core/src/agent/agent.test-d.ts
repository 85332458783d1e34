import { describe, expectTypeOf, it } from 'vitest'
import { mockModel } from '../providers/mock-model.js'
import type { RunOutput } from '../runtime/run-request.js'
import { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { AgentEvent } from '../spec/events.js'
import type { Tool } from '../tools/tool.js'
import { Agent } from './agent.js'
import type { AgentStream } from './agent-stream.js'

interface Workbook {
  destroy(): void
}

describe('Agent typing', () => {
  const agent = new Agent({ name: 'typed', model: mockModel([]) })

  it('generate takes a typed runtime and returns the RunOutput', () => {
    const runtime = new RuntimeStore<{ workbook: Workbook }>()
    expectTypeOf(agent.generate({ prompt: 'x', runtime })).toEqualTypeOf<Promise<RunOutput>>()
  })

  it('stream is an AsyncIterable of AgentEvent with text and result promises', () => {
    const stream = agent.stream({ prompt: 'x' })
    expectTypeOf(stream).toEqualTypeOf<AgentStream>()
    expectTypeOf(stream).toExtend<AsyncIterable<AgentEvent>>()
    expectTypeOf(stream.text).toEqualTypeOf<Promise<string>>()
    expectTypeOf(stream.result).toEqualTypeOf<Promise<RunOutput>>()
    expectTypeOf(stream.textStream).toEqualTypeOf<AsyncIterable<string>>()
  })

  it('asTool is a Tool taking a prompt and returning text; the model may be a provider:model id', () => {
    expectTypeOf(agent.asTool()).toEqualTypeOf<Tool<{ prompt: string }, string>>()
    expectTypeOf(new Agent({ name: 'by-id', model: 'openai:gpt-5.4' }).model).toEqualTypeOf<Agent['model']>()
  })
})
