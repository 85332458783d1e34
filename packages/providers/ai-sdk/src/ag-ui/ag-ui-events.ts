// AG-UI events out: a Spindle run's events as the Agent–User Interaction protocol's events (`@ag-ui/core`) — run
// started/finished/error, text and reasoning messages, tool call start/args/end/result, steps — for CopilotKit and
// other AG-UI clients. An approval request ends the run with an `interrupt` outcome the client resumes; a call of a
// client tool ends it for the client to run the tool. With a state source, the run's state is sent as a snapshot at
// the start and as JSON Patch deltas when it changes.
import type { AgentEvent, LaggedEvent } from '@spindle/core'
import { diffJson } from './json-patch.js'
import type { AgUiStateSource } from './state.js'

/** An AG-UI event as plain JSON (structurally `BaseEvent` of `@ag-ui/core`, `type` one of its `EventType` values). */
export interface AgUiEvent {
  type: string
  timestamp?: number
  [key: string]: unknown
}

/** Separates the run id from the call id in an interrupt id (run ids never contain it). */
export const interruptIdSeparator = '::'

/**
 * Options of `toAgUiEvents` and `toAgUiResponse`: the source of the run's state (sent as `STATE_SNAPSHOT` first,
 * then as `STATE_DELTA` JSON Patches after each change) and the names of the client's tools (calls of those end the
 * run and wait for the client's result instead of an approval).
 *
 * @example
 * const { tools, clientToolResults } = fromRunAgentInput(input)
 * return toAgUiResponse(runtime.stream(request), { state: recorder.stateAt, clientTools: Object.keys(tools) })
 */
export interface AgUiEventOptions {
  /** The run's state (e.g. `AgUiStateRecorder.stateAt`): STATE_SNAPSHOT at the start, STATE_DELTA on each change. */
  state?: AgUiStateSource
  /**
   * Names of the client's tools (`Object.keys(fromRunAgentInput(input).tools)`): their calls are sent with the run id
   * in the call id, which the client's tool message returns, and they end the run without an interrupt.
   */
  clientTools?: Iterable<string>
}

/** Spindle events after which the state may have changed. */
const stateEventTypes = new Set(['tool.result', 'tool.error', 'step.finished', 'run.finished', 'run.failed'])

/** Maps Spindle events to AG-UI events one at a time; events of nested sub-runs are left out. */
export class AgUiEventMapper {
  readonly #state: AgUiStateSource | undefined
  readonly #clientTools: ReadonlySet<string>
  #lastState: Record<string, unknown> | undefined
  #runId: string | undefined
  #threadId: string | undefined
  #open: { kind: 'text' | 'reasoning'; id: string } | undefined
  #blocks = 0
  #finished = false
  readonly #interrupts: Array<{ id: string; reason: string; toolCallId: string; metadata: { runId: string; toolName: string; args: unknown } }> = []

  constructor(options: AgUiEventOptions = {}) {
    this.#state = options.state
    this.#clientTools = new Set(options.clientTools ?? [])
  }

  map(event: AgentEvent | LaggedEvent, out: AgUiEvent[] = []): AgUiEvent[] {
    if (event.type === 'lagged' || this.#finished) return out
    if (this.#runId === undefined) {
      this.#runId = event.runId
      this.#threadId = event.sessionId
      out.push({ type: 'RUN_STARTED', threadId: event.sessionId, runId: event.runId, timestamp: event.timestamp })
      if (this.#state !== undefined && event.parentRunId === undefined) {
        this.#lastState = this.#state(event) ?? {}
        out.push({ type: 'STATE_SNAPSHOT', snapshot: this.#lastState, timestamp: event.timestamp })
      }
    }
    if (event.runId !== this.#runId) return out
    // Before the event's own mapping ends the run (after closing an open message); after it otherwise (a result,
    // then what it changed).
    const terminal = event.type === 'run.finished' || event.type === 'run.failed'
    if (terminal) {
      this.#close(out, event.timestamp)
      this.#stateDelta(event, out)
    }
    this.#map(event, out)
    if (!terminal) this.#stateDelta(event, out)
    return out
  }

  #stateDelta(event: AgentEvent, out: AgUiEvent[]): void {
    if (this.#state === undefined || !stateEventTypes.has(event.type)) return
    const next = this.#state(event)
    if (next === undefined || next === this.#lastState) return
    const delta = diffJson(this.#lastState ?? {}, next)
    this.#lastState = next
    if (delta.length > 0) out.push({ type: 'STATE_DELTA', delta, timestamp: event.timestamp })
  }

  /** The call id the client sees: a client tool's carries the run id (its tool message names the run to resume). */
  #callId(runId: string, callId: string, toolName: string): string {
    return this.#clientTools.has(toolName) ? `${runId}${interruptIdSeparator}${callId}` : callId
  }

  #map(event: AgentEvent, out: AgUiEvent[]): void {
    const timestamp = event.timestamp
    switch (event.type) {
      case 'step.started':
        out.push({ type: 'STEP_STARTED', stepName: `step ${event.step}`, timestamp })
        return
      case 'step.finished':
        this.#close(out, timestamp)
        out.push({ type: 'STEP_FINISHED', stepName: `step ${event.step}`, timestamp })
        return
      case 'text.delta':
        if (event.delta) out.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.#block('text', out, timestamp), delta: event.delta, timestamp })
        return
      case 'reasoning.delta':
        if (event.delta) out.push({ type: 'REASONING_MESSAGE_CONTENT', messageId: this.#block('reasoning', out, timestamp), delta: event.delta, timestamp })
        return
      case 'tool.call': {
        this.#close(out, timestamp)
        const toolCallId = this.#callId(event.runId, event.callId, event.toolName)
        out.push(
          { type: 'TOOL_CALL_START', toolCallId, toolCallName: event.toolName, timestamp },
          { type: 'TOOL_CALL_ARGS', toolCallId, delta: JSON.stringify(event.args), timestamp },
          { type: 'TOOL_CALL_END', toolCallId, timestamp },
        )
        return
      }
      case 'tool.result':
        // A client tool's result came from the client's own tool message.
        if (this.#clientTools.has(event.toolName)) return
        out.push({
          type: 'TOOL_CALL_RESULT',
          messageId: `${event.callId}-result`,
          toolCallId: event.callId,
          role: 'tool',
          content: typeof event.result === 'string' ? event.result : JSON.stringify(event.result),
          timestamp,
        })
        return
      case 'tool.error':
        if (this.#clientTools.has(event.toolName) && event.error.code !== 'approval_denied') return
        out.push({
          type: 'TOOL_CALL_RESULT',
          messageId: `${event.callId}-result`,
          toolCallId: this.#callId(event.runId, event.callId, event.toolName),
          role: 'tool',
          content: `Error (${event.error.code}): ${event.error.message}`,
          timestamp,
        })
        return
      case 'approval.requested':
        // A client tool's call is the client's to run: the run ends and its tool message resumes it.
        if (this.#clientTools.has(event.toolName)) return
        this.#interrupts.push({
          id: `${event.runId}${interruptIdSeparator}${event.callId}`,
          reason: 'tool_approval',
          toolCallId: event.callId,
          metadata: { runId: event.runId, toolName: event.toolName, args: event.args },
        })
        return
      case 'run.finished': {
        this.#close(out, timestamp)
        this.#finished = true
        if (event.finishReason === 'error' && event.error) {
          out.push({ type: 'RUN_ERROR', message: event.error.message, code: event.error.code, timestamp })
          return
        }
        const outcome =
          event.finishReason === 'awaiting_approval' && this.#interrupts.length > 0
            ? {
                type: 'interrupt',
                interrupts: this.#interrupts.map((interrupt) => ({ ...interrupt, message: `Approve the call of ${interrupt.metadata.toolName}?` })),
              }
            : event.finishReason === 'cancelled'
              ? { type: 'cancelled' }
              : { type: 'success' }
        out.push({
          type: 'RUN_FINISHED',
          threadId: this.#threadId,
          runId: this.#runId,
          result: { text: event.text, finishReason: event.finishReason },
          outcome,
          timestamp,
        })
        return
      }
      case 'run.failed':
        this.#close(out, timestamp)
        this.#finished = true
        out.push({ type: 'RUN_ERROR', message: event.error.message, code: event.error.code, timestamp })
        return
      default:
        return
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
export async function* toAgUiEvents(events: AsyncIterable<AgentEvent | LaggedEvent>, options: AgUiEventOptions = {}): AsyncGenerator<AgUiEvent> {
  const mapper = new AgUiEventMapper(options)
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
export function toAgUiResponse(events: AsyncIterable<AgentEvent | LaggedEvent>, init: ResponseInit & AgUiEventOptions = {}): Response {
  const { state, clientTools, ...responseInit } = init
  const encoder = new TextEncoder()
  const iterator = toAgUiEvents(events, { ...(state !== undefined && { state }), ...(clientTools !== undefined && { clientTools }) })
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
  const headers = new Headers(responseInit.headers)
  if (!headers.has('content-type')) headers.set('content-type', 'text/event-stream')
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-cache')
  return new Response(body, { status: 200, ...responseInit, headers })
}
