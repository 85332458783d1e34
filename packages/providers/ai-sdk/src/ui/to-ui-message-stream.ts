// toUIMessageStream: a Spindle run's events as the AI SDK UI message stream that `useChat` renders — text and
// reasoning blocks, tool calls with their input, results, errors and approval requests, step boundaries, usage, and
// the run id as message metadata. toUIMessageStreamResponse sends it as Server-Sent Events.
import type { AgentEvent, LaggedEvent, Usage } from '@spindle/core'
import type { SpindleMessageMetadata, UIMessageChunk } from './ui-message-chunk.js'

/** Options of `toUIMessageStream()`: the assistant message's id, the error text a user may see, and what else goes into the stream. */
export interface ToUIMessageStreamOptions {
  /** The assistant message's id (default: the run id). */
  messageId?: string
  /** Text sent for a failed run (default: the run error's message). Return the text the user may see. */
  errorText?: (error: { code: string; message: string }) => string
}

const finishReasons: Record<string, 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other'> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content-filter',
  awaiting_approval: 'tool-calls',
  error: 'error',
}

/** Maps events one at a time (exported for tests and custom transports); `end()` closes what is still open. */
export class UIMessageChunkMapper {
  readonly #options: ToUIMessageStreamOptions
  #rootRunId: string | undefined
  #metadata: SpindleMessageMetadata | undefined
  #open: { kind: 'text' | 'reasoning'; id: string } | undefined
  #blocks = 0
  #stepOpen = false
  #finished = false
  #usage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

  constructor(options: ToUIMessageStreamOptions = {}) {
    this.#options = options
  }

  /** The chunks for one event (none for events of nested sub-runs, lag notices and bookkeeping events). */
  map(event: AgentEvent | LaggedEvent, out: UIMessageChunk[] = []): UIMessageChunk[] {
    if (event.type === 'lagged' || this.#finished) return out
    if (this.#rootRunId === undefined) {
      this.#rootRunId = event.runId
      this.#metadata = { runId: event.runId, sessionId: event.sessionId }
      out.push({ type: 'start', messageId: this.#options.messageId ?? event.runId, messageMetadata: { ...this.#metadata } })
    }
    if (event.runId !== this.#rootRunId) return out
    switch (event.type) {
      case 'step.started':
        this.#closeStep(out)
        out.push({ type: 'start-step' })
        this.#stepOpen = true
        return out
      case 'text.delta':
        if (event.delta) out.push({ type: 'text-delta', id: this.#block('text', out), delta: event.delta })
        return out
      case 'reasoning.delta':
        if (event.delta) out.push({ type: 'reasoning-delta', id: this.#block('reasoning', out), delta: event.delta })
        return out
      case 'tool.call': {
        this.#closeBlock(out)
        const { callId: toolCallId, toolName, args } = event
        out.push(
          { type: 'tool-input-start', toolCallId, toolName },
          { type: 'tool-input-delta', toolCallId, inputTextDelta: JSON.stringify(args) },
          { type: 'tool-input-available', toolCallId, toolName, input: args },
        )
        return out
      }
      case 'approval.requested':
        out.push({ type: 'tool-approval-request', approvalId: event.callId, toolCallId: event.callId })
        return out
      case 'tool.result':
        out.push({ type: 'tool-output-available', toolCallId: event.callId, output: event.result })
        return out
      case 'tool.error':
        if (event.error.code === 'approval_denied') out.push({ type: 'tool-output-denied', toolCallId: event.callId })
        else out.push({ type: 'tool-output-error', toolCallId: event.callId, errorText: event.error.message })
        return out
      case 'step.finished':
        // The run's running total, not the step's own: a step suspended for approval finishes twice (at the
        // suspension, then after the resume ran its tools), and adding the totals up would count them again.
        this.#usage = event.usage
        this.#closeStep(out)
        out.push({ type: 'message-metadata', messageMetadata: this.#currentMetadata() })
        return out
      case 'run.finished':
        this.#usage = event.usage
        this.#closeStep(out)
        if (event.finishReason === 'cancelled') out.push({ type: 'abort', reason: 'cancelled' })
        if (event.error) out.push({ type: 'error', errorText: this.#errorText(event.error) })
        return this.#finish(out, event.finishReason)
      case 'run.failed':
        this.#usage = event.usage
        this.#closeStep(out)
        out.push({ type: 'error', errorText: this.#errorText(event.error) })
        return this.#finish(out, 'error')
      default:
        return out
    }
  }

  /** Closes an open block and step when the events ended without a terminal event (a cut connection). */
  end(out: UIMessageChunk[] = []): UIMessageChunk[] {
    if (!this.#finished && this.#rootRunId !== undefined) this.#closeStep(out)
    return out
  }

  #finish(out: UIMessageChunk[], reason: string): UIMessageChunk[] {
    // A run suspended for approval goes on when resumed: a catch-up from its log maps the resumed events too.
    this.#finished = reason !== 'awaiting_approval'
    const metadata = { ...this.#currentMetadata(), finishReason: reason }
    out.push({ type: 'finish', finishReason: finishReasons[reason] ?? 'other', messageMetadata: metadata })
    return out
  }

  #currentMetadata(): SpindleMessageMetadata {
    const { inputTokens, outputTokens, totalTokens } = this.#usage
    return { ...this.#metadata!, usage: { inputTokens, outputTokens, totalTokens } }
  }

  #errorText(error: { code: string; message: string }): string {
    return this.#options.errorText ? this.#options.errorText(error) : error.message
  }

  /** The id of the open block of `kind`, opening one (and closing the other kind) when needed. */
  #block(kind: 'text' | 'reasoning', out: UIMessageChunk[]): string {
    if (this.#open?.kind === kind) return this.#open.id
    this.#closeBlock(out)
    const id = `${kind}-${++this.#blocks}`
    this.#open = { kind, id }
    out.push(kind === 'text' ? { type: 'text-start', id } : { type: 'reasoning-start', id })
    return id
  }

  #closeBlock(out: UIMessageChunk[]): void {
    const open = this.#open
    if (!open) return
    this.#open = undefined
    out.push(open.kind === 'text' ? { type: 'text-end', id: open.id } : { type: 'reasoning-end', id: open.id })
  }

  #closeStep(out: UIMessageChunk[]): void {
    this.#closeBlock(out)
    if (this.#stepOpen) {
      this.#stepOpen = false
      out.push({ type: 'finish-step' })
    }
  }
}

/**
 * The UI message stream of a run: pass `runtime.stream(request)` (or the catch-up stream of `runEvents`).
 * Cancelling the returned stream stops reading the events (for `runtime.stream`, that cancels the run).
 *
 * @example
 * const chunks = toUIMessageStream(runtime.stream({ sessionId, agent, input }))
 */
export function toUIMessageStream(events: AsyncIterable<AgentEvent | LaggedEvent>, options: ToUIMessageStreamOptions = {}): ReadableStream<UIMessageChunk> {
  const mapper = new UIMessageChunkMapper(options)
  const iterator = events[Symbol.asyncIterator]()
  const out: UIMessageChunk[] = []
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      for (;;) {
        let next: IteratorResult<AgentEvent | LaggedEvent>
        try {
          next = await iterator.next()
        } catch (error) {
          out.length = 0
          mapper.end(out)
          for (const chunk of out) controller.enqueue(chunk)
          controller.enqueue({ type: 'error', errorText: error instanceof Error ? error.message : String(error) })
          controller.close()
          return
        }
        out.length = 0
        if (next.done) mapper.end(out)
        else mapper.map(next.value, out)
        for (const chunk of out) controller.enqueue(chunk)
        if (next.done) return controller.close()
        if (out.length > 0) return
      }
    },
    async cancel() {
      await iterator.return?.()
    },
  })
}

/** The headers of a UI message stream response (`x-vercel-ai-ui-message-stream: v1`, no buffering). */
export const uiMessageStreamHeaders: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
}

/**
 * A `Response` with the run's UI message stream as Server-Sent Events, what `useChat`'s default transport reads.
 * With `streamDetached`, a client that goes away (a reload) leaves the run going on; with `runtime.stream`, it is cancelled.
 *
 * @example
 * app.post('/api/chat', async (c) => toUIMessageStreamResponse(streamDetached(runtime, { sessionId, agent, input: fromUIMessages(await c.req.json()).input! })))
 */
export function toUIMessageStreamResponse(events: AsyncIterable<AgentEvent | LaggedEvent>, init: ResponseInit & ToUIMessageStreamOptions = {}): Response {
  const { messageId, errorText, ...responseInit } = init
  const encoder = new TextEncoder()
  const chunks = toUIMessageStream(events, { ...(messageId !== undefined && { messageId }), ...(errorText !== undefined && { errorText }) })
  const body = chunks.pipeThrough(
    new TransformStream<UIMessageChunk, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`))
      },
      flush(controller) {
        controller.enqueue(encoder.encode('data: [DONE]\n\n'))
      },
    }),
  )
  const headers = new Headers(responseInit.headers)
  for (const [name, value] of Object.entries(uiMessageStreamHeaders)) if (!headers.has(name)) headers.set(name, value)
  return new Response(body, { status: 200, ...responseInit, headers })
}
