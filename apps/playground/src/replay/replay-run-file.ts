// Replays an exported run offline: the model is a `mockModel` scripted with what the recorded model answered at
// each step, the tools return what the journal recorded. How a bad production run becomes a regression test.
import {
  AgentRuntime,
  type AgentEvent,
  defineTool,
  Extensions,
  type JsonValue,
  jsonSchema,
  memoryStores,
  type MockModel,
  mockModel,
  type MockTurn,
  type ModelMessage,
  type RunOutput,
  type Tool,
} from '@spindle/core'
import type { RunFile } from './run-file.js'

export interface ReplayOptions {
  /** Real tools to use instead of the recorded results (by name): to check a fix in a tool against the same run. */
  tools?: Record<string, Tool>
  /** Turns to use instead of the recorded ones (by step, 1-based): to check how the agent handles another answer. */
  turns?: Record<number, MockTurn>
}

export interface ReplayResult {
  output: RunOutput
  /** The scripted model: `model.calls` holds each request the replay sent, to assert on. */
  model: MockModel
  /** The replay's events, in order. */
  events: AgentEvent[]
  /** The tool calls the replay made, in order. */
  toolCalls: Array<{ step: number; toolName: string; args: JsonValue }>
}

/** The model's answer at each step of the run, from its events (a step redone after a resume: the last try wins). */
export function recordedTurns(file: RunFile): MockTurn[] {
  const turns = new Map<number, MockTurn & { text: string; toolCalls: NonNullable<MockTurn['toolCalls']> }>()
  for (const event of file.events) {
    if (event.runId !== file.run.id) continue
    if (event.type === 'step.started') turns.set(event.step, { text: '', toolCalls: [] })
    const turn = 'step' in event ? turns.get(event.step) : undefined
    if (!turn) continue
    if (event.type === 'text.delta') turn.text += event.delta
    if (event.type === 'tool.call') turn.toolCalls.push({ id: event.callId, name: event.toolName, args: event.args })
    if (event.type === 'step.finished') turn.usage = event.usage
  }
  return [...turns.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, turn]) => ({
      ...(turn.text ? { text: turn.text } : {}),
      ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {}),
      ...(turn.usage ? { usage: turn.usage } : {}),
    }))
}

/** A stand-in per recorded tool: returns (or throws) what the journal recorded for the same call id. */
function recordedTools(file: RunFile): Record<string, Tool> {
  const outcomes = new Map<string, { result?: JsonValue; error?: { message: string } }>()
  for (const call of file.journal) outcomes.set(call.callId, { result: call.result, error: call.error })
  for (const event of file.events) {
    if (event.runId !== file.run.id || outcomes.has((event as { callId?: string }).callId ?? '')) continue
    if (event.type === 'tool.result') outcomes.set(event.callId, { result: event.result })
    if (event.type === 'tool.error') outcomes.set(event.callId, { error: event.error })
  }
  const names = new Set(file.events.flatMap((event) => (event.runId === file.run.id && event.type === 'tool.call' ? [event.toolName] : [])))
  return Object.fromEntries(
    [...names].map((name) => [
      name,
      defineTool({
        name,
        description: `Recorded results of ${name}`,
        inputSchema: jsonSchema<Record<string, JsonValue>>({ type: 'object' }),
        idempotent: true,
        effect: 'read',
        execute: (_args, context) => {
          const outcome = outcomes.get(context.callId)
          if (!outcome) throw new Error(`[spindle/playground] the run file has no recorded result for ${name} call ${context.callId}`)
          if (outcome.error) throw new Error(outcome.error.message)
          return outcome.result ?? null
        },
      }) as Tool,
    ]),
  )
}

/** The history the run's first step saw: the session's messages before the run's own. */
function priorMessages(file: RunFile): ModelMessage[] {
  const own = file.sessionEntries.findIndex((entry) => entry.runId === file.run.id)
  const before = own < 0 ? [] : file.sessionEntries.slice(0, own)
  return before.flatMap((entry) => (entry.kind === 'message' ? [entry.message] : []))
}

/**
 * Runs the exported run again on in-memory stores: same instructions, same prior history, same input; the model
 * answers as recorded and the tools return what was recorded (unless `options` replaces some).
 *
 * @example
 * const { output } = await replayRunFile(parseRunFile(readFileSync('bad-run.run.json', 'utf8')))
 * expect(output.text).not.toContain('the wrong answer')
 */
export async function replayRunFile(file: RunFile, options: ReplayOptions = {}): Promise<ReplayResult> {
  const turns = recordedTurns(file).map((turn, index) => options.turns?.[index + 1] ?? turn)
  const agentRecord = (file.run.request.agent ?? {}) as { name?: string; instructions?: string; model?: string }
  const model = mockModel(turns, { provider: 'replay', modelId: agentRecord.model ?? 'recorded' })
  const runtime = new AgentRuntime(new Extensions().setStores(memoryStores()), { maxSteps: Math.max(turns.length + 1, 2) })
  const session = await runtime.sessions.createSession({ id: `replay_${file.run.sessionId}`, metadata: { replayOf: file.run.id } })
  const history = priorMessages(file)
  if (history.length)
    await runtime.sessions.append(
      session.id,
      history.map((message) => ({ kind: 'message' as const, message })),
    )
  const tools = { ...recordedTools(file), ...options.tools }
  const stream = runtime.stream({
    agent: { name: agentRecord.name ?? 'replayed', ...(agentRecord.instructions ? { instructions: agentRecord.instructions } : {}), model, tools },
    input: file.run.request.input as string | ModelMessage[],
    sessionId: session.id,
  })
  const events: AgentEvent[] = []
  for await (const event of stream) events.push(event)
  const output = await stream.result
  const toolCalls = events.flatMap((event) => (event.type === 'tool.call' ? [{ step: event.step, toolName: event.toolName, args: event.args }] : []))
  return { output, model, events, toolCalls }
}
