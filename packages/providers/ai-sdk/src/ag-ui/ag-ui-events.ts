// AG-UI events out: a Spindle run's events as the Agent–User Interaction protocol's events (`@ag-ui/core`) — run
// started/finished/error, text and reasoning messages, tool call start/args/end/result, steps — for CopilotKit and
// other AG-UI clients. An approval request ends the run with an `interrupt` outcome the client resumes.
import type { AgentEvent, LaggedEvent } from '@spindle/core'

/** An AG-UI event as plain JSON (structurally `BaseEvent` of `@ag-ui/core`, `type` one of its `EventType` values). */
export interface AgUiEvent {
  type: string
  timestamp?: number
  [key: string]: unknown
}

/** Separates the run id from the call id in an interrupt id (run ids never contain it). */
export const interruptIdSeparator = '::'

/** Maps Spindle events to AG-UI events one at a time; events of nested sub-runs are left out. */
export class AgUiEventMapper {
  #runId: string | undefined
  #threadId: string | undefined
  #open: { kind: 'text' | 'reasoning'; id: string } | undefined
  #blocks = 0
  #finished = false
  readonly #interrupts: Array<{ id: string; reason: string; toolCallId: string; metadata: { runId: string; toolName: string; args: unknown } }> = []

  map(event: AgentEvent | LaggedEvent, out: AgUiEvent[] = []): AgUiEvent[] {
    if (event.type === 'lagged' || this.#finished) return out
    if (this.#runId === undefined) {
      this.#runId = event.runId
      this.#threadId = event.sessionId
      out.push({ type: 'RUN_STARTED', threadId: event.sessionId, runId: event.runId, timestamp: event.timestamp })
    }
    if (event.runId !== this.#runId) return out
    const timestamp = event.timestamp
    switch (event.type) {
      case 'step.started':
        out.push({ type: 'STEP_STARTED', stepName: `step ${event.step}`, timestamp })
        return out
      case 'step.finished':
        this.#close(out, timestamp)
        out.push({ type: 'STEP_FINISHED', stepName: `step ${event.step}`, timestamp })
        return out
      case 'text.delta':
        if (event.delta) out.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.#block('text', out, timestamp), delta: event.delta, timestamp })
        return out
      case 'reasoning.delta':
        if (event.delta) out.push({ type: 'REASONING_MESSAGE_CONTENT', messageId: this.#block('reasoning', out, timestamp), delta: event.delta, timestamp })
        return out
      case 'tool.call':
        this.#close(out, timestamp)
        out.push(
          { type: 'TOOL_CALL_START', toolCallId: event.callId, toolCallName: event.toolName, timestamp },
          { type: 'TOOL_CALL_ARGS', toolCallId: event.callId, delta: JSON.stringify(event.args), timestamp },
          { type: 'TOOL_CALL_END', toolCallId: event.callId, timestamp },
        )
        return out
      case 'tool.result':
        out.push({ type: 'TOOL_CALL_RESULT', messageId: `${event.callId}-result`, toolCallId: event.callId, role: 'tool', content: typeof event.result === 'string' ? event.result : JSON.stringify(event.result), timestamp })
        return out
      case 'tool.error':
        out.push({ type: 'TOOL_CALL_RESULT', messageId: `${event.callId}-result`, toolCallId: event.callId, role: 'tool', content: `Error (${event.error.code}): ${event.error.message}`, timestamp })
        return out
      case 'approval.requested':
        this.#interrupts.push({
          id: `${event.runId}${interruptIdSeparator}${event.callId}`,
          reason: 'tool_approval',
          toolCallId: event.callId,
          metadata: { runId: event.runId, toolName: event.toolName, args: event.args },
        })
        return out
      case 'run.finished': {
        this.#close(out, timestamp)
        this.#finished = true
        if (event.finishReason === 'error' && event.error) {
          out.push({ type: 'RUN_ERROR', message: event.error.message, code: event.error.code, timestamp })
          return out
        }
        const outcome =
          event.finishReason === 'awaiting_approval' && this.#interrupts.length > 0
            ? { type: 'interrupt', interrupts: this.#interrupts.map((interrupt) => ({ ...interrupt, message: `Approve the call of ${interrupt.metadata.toolName}?` })) }
            : event.finishReason === 'cancelled'
              ? { type: 'cancelled' }
              : { type: 'success' }
        out.push({ type: 'RUN_FINISHED', threadId: this.#threadId, runId: this.#runId, result: { text: event.text, finishReason: event.finishReason }, outcome, timestamp })
        return out
      }
      case 'run.failed':
        this.#close(out, timestamp)
        this.#finished = true
        out.push({ type: 'RUN_ERROR', message: event.error.message, code: event.error.code, timestamp })
        return out
      default:
        return out
    }
  }

  #block(kind: 'text' | 'reasoning', out: AgUiEvent[], timestamp: number): string {
    if (this.#open?.kind === kind) return this.#open.id
    this.#close(out, timestamp)
    const id = `${this.#runId}-${kind}-${++this.#blocks}`
    this.#open = { kind, id }
    if (kind === 'text') out.push({ type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant', timestamp })
    else out.push({ type: 'REASONING_START', messageId: id, timestamp }, { type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning', timestamp })
    return id
  }

  #close(out: AgUiEvent[], timestamp: number): void {
    const open = this.#open
    if (!open) return
    this.#open = undefined
    if (open.kind === 'text') out.push({ type: 'TEXT_MESSAGE_END', messageId: open.id, timestamp })
    else out.push({ type: 'REASONING_MESSAGE_END', messageId: open.id, timestamp }, { type: 'REASONING_END', messageId: open.id, timestamp })
  }
}

/**
 * The AG-UI events of a run (pass `runtime.stream(request)`, `approveAndResume(...)` or `runEvents(...)`).
 *
 * @example
 * for await (const event of toAgUiEvents(runtime.stream(request))) write(`data: ${JSON.stringify(event)}\n\n`)
 */
export async function* toAgUiEvents(events: AsyncIterable<AgentEvent | LaggedEvent>): AsyncGenerator<AgUiEvent> {
  const mapper = new AgUiEventMapper()
  const out: AgUiEvent[] = []
  for await (const event of events) {
    out.length = 0
    mapper.map(event, out)
    yield* out
  }
}

/**
 * A `Response` with the run's AG-UI events as Server-Sent Events (what `HttpAgent` of `@ag-ui/client` reads).
 *
 * @example
 * app.post('/agui', async (c) => toAgUiResponse(runtime.stream(requestFrom(fromRunAgentInput(await c.req.json())))))
 */
export function toAgUiResponse(events: AsyncIterable<AgentEvent | LaggedEvent>, init: ResponseInit = {}): Response {
  const encoder = new TextEncoder()
  const iterator = toAgUiEvents(events)
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next()
      if (next.done) controller.close()
      else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`))
    },
    async cancel() {
      await iterator.return(undefined)
    },
  })
  const headers = new Headers(init.headers)
  if (!headers.has('content-type')) headers.set('content-type', 'text/event-stream')
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-cache')
  return new Response(body, { status: 200, ...init, headers })
}
