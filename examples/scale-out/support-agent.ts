// The agent both sides of the scale-out example share: the enqueuer names it, each worker executes it. Its model
// is scripted (offline) and slow enough that two workers visibly share the runs.
import { type AgentSpec, defineTool, mockModel, type ModelMessage } from '@spindle/core'
import { z } from 'zod'

const text = (message: ModelMessage | undefined): string =>
  message === undefined ? '' : typeof message.content === 'string' ? message.content : JSON.stringify(message.content)

/** How long the scripted model takes to write its answer after the tool call (`ANSWER_DELAY_MS`, default 150 ms). */
const answerDelayMs = Number(process.env.ANSWER_DELAY_MS ?? 150)

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
        return { text: `Order ${order} has shipped with PostNL.`, delayMs: answerDelayMs }
      }
      // The question of this run is the last user message: "Where is order 1042?"
      const order = Number(/order (\d+)/.exec(text(last))?.[1] ?? 0)
      return { text: 'Let me check.', toolCalls: [{ name: 'lookup_order', args: { order } }], delayMs: 150 }
    },
    { modelId: 'support-demo' },
  )
  return { name: 'support', instructions: 'Answer questions about orders.', model, tools: { lookup_order: lookupOrder } }
}

/**
 * Where the example keeps its tables: `SCALE_OUT_SCHEMA` (default `spindle_example`) for Spindle's, and pg-boss's
 * in a second schema, `<schema>_queue`. Every process of one fleet must name the same schema.
 */
export const exampleSchema = process.env.SCALE_OUT_SCHEMA ?? 'spindle_example'
export const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
