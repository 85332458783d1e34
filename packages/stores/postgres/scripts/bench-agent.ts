// The benchmark's agent: `steps` model turns, each but the last calling one idempotent no-op tool; the model
// answers at once, so what is measured is the runtime, the stores, the gate and the queue.
import { type AgentSpec, defineTool, jsonSchema, mockModel } from '@spindle/core'

export function benchAgent(steps: number): AgentSpec {
  const noop = defineTool({
    name: 'noop',
    description: 'Does nothing',
    inputSchema: jsonSchema<{ step: number }>({ type: 'object', properties: { step: { type: 'number' } }, required: ['step'] }),
    idempotent: true,
    effect: 'read',
    execute: ({ step }) => ({ step }),
  })
  const model = mockModel(
    (request) => {
      const lastUser = request.messages.findLastIndex((message) => message.role === 'user')
      const turn = request.messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length
      return turn + 1 >= steps ? { text: 'done' } : { text: `step ${turn}`, toolCalls: [{ id: `c${turn}`, name: 'noop', args: { step: turn } }] }
    },
    { modelId: 'bench' },
  )
  return { name: `bench-${steps}`, model, tools: { noop } }
}
