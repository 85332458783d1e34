// Test and measurement helper: real AgentRuntime runs on sqliteStores with a scripted model asking for one tool
// call per step (as bench/src/workload.ts), and the WAL pages those runs write, counted from the WAL file.
import { statSync } from 'node:fs'
import { AgentRuntime, defineTool, Extensions, mockModel, type RunOutput } from '@spindle/core'
import { z } from 'zod'
import type { SqliteStores } from '../index.js'

const addTool = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
})

/** A runtime over `stores` whose policy lets a run of up to `maxSteps` tool steps finish with `stop`. */
export function stepRuntime(stores: SqliteStores, maxSteps = 64): AgentRuntime {
  return new AgentRuntime(new Extensions().setStores(stores), { maxSteps: maxSteps + 1, maxToolCalls: maxSteps + 1, doomLoopThreshold: 1_000_000 })
}

/** One run of `steps` tool steps (one `add` call each) then a final answer; throws unless it finished as scripted. */
export async function runSteps(runtime: AgentRuntime, steps: number, sessionId?: string): Promise<RunOutput> {
  const model = mockModel((_request, index) => (index < steps ? { toolCalls: [{ name: 'add', args: { a: index, b: 1 }, id: `call_${index}` }] } : { text: 'done' }), {
    recordCalls: false,
  })
  const output = await runtime.run({
    agent: { name: 'steps', model, tools: { add: addTool } },
    input: 'go',
    ...(sessionId !== undefined ? { sessionId } : {}),
  })
  if (output.finishReason !== 'stop' || output.steps !== steps + 1 || model.turnIndex !== steps + 1) {
    throw new Error(`the scripted run of ${steps} steps ended with ${output.finishReason} after ${output.steps} steps ${JSON.stringify(output.error ?? '')}`)
  }
  return output
}

/** Frames in the WAL of the stores' file since the last `resetWal` (the connection must not checkpoint on its own). */
export function walFrames(stores: SqliteStores): number {
  const pageSize = stores.database.pragma('page_size', { simple: true }) as number
  let size = 0
  try {
    size = statSync(`${stores.database.name}-wal`).size
  } catch {
    return 0
  }
  return size <= 32 ? 0 : (size - 32) / (pageSize + 24)
}

/** Checkpoints and empties the WAL, and stops automatic checkpoints, so that `walFrames` counts every page written. */
export function resetWal(stores: SqliteStores): void {
  stores.database.pragma('wal_autocheckpoint = 0')
  stores.database.pragma('wal_checkpoint(TRUNCATE)')
}

/**
 * WAL pages written per tool step: the frames of a long run minus those of a short one (each in a new session),
 * divided by the step difference, so that the per-run writes (session, run record, first and last step) cancel.
 */
export async function pagesPerStep(stores: SqliteStores, shortSteps = 2, longSteps = 22): Promise<number> {
  const runtime = stepRuntime(stores, longSteps)
  await runSteps(runtime, shortSteps) // warm: statements prepared, tables past their first pages
  resetWal(stores)
  await runSteps(runtime, shortSteps)
  const short = walFrames(stores)
  resetWal(stores)
  await runSteps(runtime, longSteps)
  const long = walFrames(stores)
  return (long - short) / (longSteps - shortSteps)
}
