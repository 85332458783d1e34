// The run's `invoke_agent` span: where it goes in the trace, and the attributes it ends with.
import { type Context, ROOT_CONTEXT, type SpanContext, SpanStatusCode, trace } from '@opentelemetry/api'
import type { AgentEvent, AgentEventOf } from '@spindle/core'
import { attributes as A } from './gen-ai-attributes.js'
import { outputMessages } from './gen-ai-messages.js'
import { safeJson, type RunTrace, type ToolState } from './run-trace.js'
import { runSpanContext } from './trace-identity.js'

/**
 * A sub-agent's span goes under the parent's tool span that runs it (the one whose name matches the agent,
 * else the latest started); a top-level run (or a sub-agent whose parent is not traced here) goes under
 * the run's deterministic context. `parent` is the parent run's trace, when it is traced here.
 */
export function runSpanParent(event: AgentEvent, agentName: string, identity: SpanContext, parent: RunTrace | undefined): Context {
  if (event.parentRunId) {
    if (parent) {
      // The sub-runs of parallel calls start in the order of their calls: each takes the first matching span
      // that has none yet, so they do not all pile up under the first call's span.
      let free: ToolState | undefined
      let match: ToolState | undefined
      let latest: ToolState | undefined
      const wanted = agentName.replace(/[^a-zA-Z0-9_-]/g, '_')
      for (const tool of parent.tools.values()) {
        if (tool.toolName === wanted || tool.toolName === agentName) {
          match ??= tool
          if (tool.subRuns === 0) free ??= tool
        }
        if (!latest || tool.startTime >= latest.startTime) latest = tool
      }
      const chosen = parent.recording ? (free ?? match ?? latest) : undefined
      if (chosen) chosen.subRuns++
      return trace.setSpan(ROOT_CONTEXT, chosen?.span ?? parent.span)
    }
    return trace.setSpanContext(ROOT_CONTEXT, runSpanContext(event.parentRunId))
  }
  return trace.setSpanContext(ROOT_CONTEXT, identity)
}

/** Ends a run's span with the run's totals, finish reason and steps (its error, or its output when content is captured). */
export function endRunSpan(run: RunTrace, event: AgentEventOf<'run.finished'> | AgentEventOf<'run.failed'>, captureContent: boolean): void {
  const { span } = run
  span.setAttribute(A.inputTokens, event.usage.inputTokens)
  span.setAttribute(A.outputTokens, event.usage.outputTokens)
  if (event.usage.cachedInputTokens) span.setAttribute(A.cachedInputTokens, event.usage.cachedInputTokens)
  if (event.usage.reasoningTokens) span.setAttribute(A.reasoningTokens, event.usage.reasoningTokens)
  if (event.usage.costUsd) span.setAttribute(A.costUsd, event.usage.costUsd)
  span.setAttribute(A.finishReasons, [event.finishReason])
  span.setAttribute(A.finishReason, event.finishReason)
  span.setAttribute(A.steps, event.steps)
  span.setAttribute(A.responseModel, run.model)
  if (event.type === 'run.failed') {
    span.setAttribute(A.errorType, event.error.code)
    span.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message })
  } else if (captureContent && event.text) {
    span.setAttribute(A.outputMessages, safeJson(outputMessages(event.text, event.finishReason)))
  }
  span.end(event.timestamp)
}
