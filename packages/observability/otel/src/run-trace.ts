// The state the observer keeps per traced run: its span, the open model call and tool calls.
import type { Context, Span, SpanContext } from '@opentelemetry/api'
import type { Usage } from '@spindle/core'

export interface ChatState {
  span: Span
  step: number
  startTime: number
  /** When the model stream ended (first tool call or approval request), if before `step.finished`. */
  endTime?: number
  usageBefore: Usage
  text: string
}

export interface ToolState {
  span: Span
  toolName: string
  startTime: number
  /** Sub-agent runs already placed under this span (parallel calls of one sub-agent each get their own span). */
  subRuns: number
}

export interface RunTrace {
  runId: string
  sessionId: string
  agentName: string
  provider: string
  model: string
  span: Span
  context: Context
  /** False when no SDK samples this run (e.g. none is registered): child spans are then not even created. */
  recording: boolean
  startTime: number
  usage: Usage
  chat?: ChatState
  tools: Map<string, ToolState>
  args: Map<string, unknown>
}

export interface KnownRun {
  agentName: string
  modelId: string
  spanContext: SpanContext
}

/** JSON text of a value for an attribute (its string form when it cannot be serialized). */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return String(value)
  }
}
