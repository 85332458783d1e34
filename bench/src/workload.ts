// The shared workload: a scripted model that asks for one `add` tool call per step, then answers "done";
// the same zod tool everywhere; the seeded history; the bare hand-written loop; and Spindle run/stream with every run asserted.
import {
  AgentRuntime,
  defineTool,
  Extensions,
  mockModel,
  type MockTurn,
  type ModelMessage,
  type ModelRequest,
  type RunOutput,
  type RuntimePolicyInput,
  type ToolResultPart,
  type ToolSpecification,
  toolInputJsonSchema,
} from '@spindle/core'
import { z } from 'zod'
import { check } from './harness.js'

export const finalText = 'done'
export const addSchema = z.object({ a: z.number(), b: z.number() })

/** Counts executions so every run can assert that its tools really ran. */
export const toolCounter = { executions: 0 }

export function addNumbers({ a, b }: z.infer<typeof addSchema>): number {
  toolCounter.executions++
  return a + b
}

export const addTool = defineTool({ name: 'add', description: 'Adds two numbers', inputSchema: addSchema, execute: addNumbers })

/** Turn `index` of an N-step script: a tool call for the first N turns, then the final answer. */
export function scriptTurn(steps: number, index: number): MockTurn {
  return index < steps ? { toolCalls: [{ name: 'add', args: { a: index, b: 1 }, id: `call_${index}` }] } : { text: finalText }
}

export function scriptedModel(steps: number) {
  // Requests are not kept: a recording mock would retain every context window and measure the GC of that.
  return mockModel((_request, index) => scriptTurn(steps, index), { recordCalls: false })
}

/** A policy that lets N steps finish with `stop` (the defaults stop at 16 steps / 64 calls); every other setting is the default (doom-loop detection on: the script never repeats a call). */
export function policyFor(maxSteps: number): RuntimePolicyInput {
  return { maxSteps: maxSteps + 1, maxToolCalls: maxSteps + 1 }
}

/** The `add` tool as a model request lists it (its JSON schema is converted once and cached by the core). */
export function addToolDefinitions(): ToolSpecification[] {
  return [{ name: addTool.name, description: addTool.description ?? '', inputSchema: toolInputJsonSchema(addTool) }]
}

/** A message of a session's seeded history: alternating user questions and assistant answers (every suite seeds the same text). */
export function historyMessage(index: number): ModelMessage {
  return index % 2 ? { role: 'assistant', content: [{ type: 'text', text: `answer ${index}` }] } : { role: 'user', content: `question ${index}` }
}

/**
 * The leanest correct loop over the same model stream and the same zod tool: the floor every variant is compared to.
 * It runs on `thread` when one is given (appending the user input and every new message to it, as a loop that
 * reloaded a stored thread does), else on a new thread; it answers the messages it added, the user input first.
 */
export async function bareLoop(steps: number, thread?: ModelMessage[]): Promise<ModelMessage[]> {
  const model = scriptedModel(steps)
  const before = toolCounter.executions
  const start = thread ? thread.length : 0
  const messages: ModelMessage[] = thread ?? [{ role: 'user', content: 'go' }]
  if (thread) thread.push({ role: 'user', content: 'go' })
  const tools = addToolDefinitions()
  let text = ''
  for (;;) {
    text = ''
    const calls: Array<{ id: string; name: string; args: string }> = []
    for await (const part of model.stream({ messages, tools } satisfies ModelRequest)) {
      if (part.type === 'text-delta') text += part.delta
      else if (part.type === 'tool-call-start') calls.push({ id: part.id, name: part.name, args: '' })
      else if (part.type === 'tool-call-delta') calls[calls.length - 1]!.args += part.argsDelta
    }
    messages.push({
      role: 'assistant',
      content: [
        ...(text ? [{ type: 'text' as const, text }] : []),
        ...calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, args: JSON.parse(call.args) })),
      ],
    })
    if (!calls.length) break
    const results: ToolResultPart[] = []
    for (const call of calls) {
      const input = addSchema.parse(JSON.parse(call.args))
      results.push({ type: 'tool-result', toolCallId: call.id, toolName: call.name, result: await addTool.execute(input, undefined as never) })
    }
    messages.push({ role: 'tool', content: results })
  }
  check(text === finalText, `bare loop answered "${text}"`)
  check(model.turnIndex === steps + 1, `bare loop made ${model.turnIndex} model calls, expected ${steps + 1}`)
  check(toolCounter.executions - before === steps, `bare loop executed ${toolCounter.executions - before} tools, expected ${steps}`)
  // A new thread is all new (no copy); a given one answers its tail.
  return start === 0 ? messages : messages.slice(start)
}

export function assertOutput(output: RunOutput, steps: number, modelCalls: number, executions: number, label: string): void {
  check(output.finishReason === 'stop', `${label}: finishReason ${output.finishReason} ${output.error ? JSON.stringify(output.error) : ''}`)
  check(output.text === finalText, `${label}: text "${output.text}"`)
  check(output.steps === steps + 1, `${label}: ${output.steps} steps, expected ${steps + 1}`)
  check(modelCalls === steps + 1, `${label}: ${modelCalls} model calls, expected ${steps + 1}`)
  check(executions === steps, `${label}: ${executions} tool executions, expected ${steps}`)
}

export interface SpindleRunOptions {
  sessionId?: string
  /** Runs overlap: count executions from the run's own tool results instead of the global counter. */
  concurrent?: boolean
  runtimeStore?: import('@spindle/core').RuntimeStore
}

/** One Spindle run of N steps through `run()`, asserted. */
export async function spindleRun(runtime: AgentRuntime, steps: number, options: SpindleRunOptions = {}): Promise<RunOutput> {
  const model = scriptedModel(steps)
  const before = toolCounter.executions
  const output = await runtime.run({
    agent: { name: 'bench', model, tools: { add: addTool } },
    input: 'go',
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    ...(options.runtimeStore ? { runtime: options.runtimeStore } : {}),
  })
  assertOutput(output, steps, model.turnIndex, options.concurrent ? executedInOutput(output) : toolCounter.executions - before, 'spindle run')
  return output
}

/** One Spindle run of N steps through `stream()`, every event drained, asserted. */
export async function spindleStream(runtime: AgentRuntime, steps: number, options: SpindleRunOptions = {}): Promise<RunOutput> {
  const model = scriptedModel(steps)
  const before = toolCounter.executions
  const stream = runtime.stream({
    agent: { name: 'bench', model, tools: { add: addTool } },
    input: 'go',
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
  })
  let results = 0
  for await (const event of stream) if (event.type === 'tool.result') results++
  const output = await stream.result
  check(results === steps, `spindle stream: ${results} tool.result events, expected ${steps}`)
  assertOutput(output, steps, model.turnIndex, toolCounter.executions - before, 'spindle stream')
  return output
}

/** Tool results in the run's messages whose value is the right sum (a + b with b = 1). */
export function executedInOutput(output: RunOutput): number {
  let executed = 0
  for (const message of output.messages) {
    if (message.role !== 'tool') continue
    for (const part of message.content) if (!part.isError && part.result === Number(part.toolCallId.slice('call_'.length)) + 1) executed++
  }
  return executed
}

export function memoryRuntime(steps: number): AgentRuntime {
  return new AgentRuntime(new Extensions(), policyFor(steps))
}
