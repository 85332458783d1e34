// The agent both sides of the scale-out example share: the enqueuer names it, each worker executes it. Its model
// is scripted (offline) and slow enough that two workers visibly share the runs.
import { type AgentSpec, defineTool, mockModel, type ModelMessage } from '@spindle/core'
import { z } from 'zod'

const text = (message: ModelMessage | undefined): string =>
  message === undefined ? '' : typeof message.content === 'string' ? message.content : JSON.stringify(message.content)

/** `log` receives one line per step this process executes (the worker prints them). */
export function supportAgent(log: (line: string) => void = () => {}): AgentSpec {
  const lookupOrder = defineTool({
    name: 'lookup_order',
    description: 'Where an order is',
    inputSchema: z.object({ order: z.number().int() }),
    idempotent: true,
    effect: 'read',
    execute: ({ order }, { runId }) => {
      log(`${runId}: lookup_order(${order})`)
      return { order, status: 'shipped', carrier: 'PostNL' }
    },
  })
  const model = mockModel(
    (request) => {
      const last = request.messages.at(-1)
      if (last?.role === 'tool') {
        const order = /"order":(\d+)/.exec(text(last))?.[1]
        return { text: `Order ${order} has shipped with PostNL.`, delayMs: 150 }
      }
      // The question of this run is the last user message: "Where is order 1042?"
      const order = Number(/order (\d+)/.exec(text(last))?.[1] ?? 0)
      return { text: 'Let me check.', toolCalls: [{ name: 'lookup_order', args: { order } }], delayMs: 150 }
    },
    { modelId: 'support-demo' },
  )
  return { name: 'support', instructions: 'Answer questions about orders.', model, tools: { lookup_order: lookupOrder } }
}

/** Where the example keeps its tables (one schema; pg-boss's tables go to `<schema>_queue`). */
export const exampleSchema = process.env.SCALE_OUT_SCHEMA ?? 'spindle_example'
export const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
