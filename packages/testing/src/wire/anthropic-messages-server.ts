// A loopback server that speaks the Anthropic Messages API (`POST /v1/messages`, SSE streaming
// included), scripted per test on top of `startScriptedServer`, for the real SDK over real HTTP.
import {
  anthropicErrorBody,
  anthropicErrorStatus,
  anthropicStreamEvents,
  type AnthropicErrorType,
  type AnthropicScriptedTurn,
  type AnthropicWireEvent,
} from './anthropic-events.js'
import { anthropicLoneSurrogateRejection } from './lone-surrogates.js'
import { startScriptedServer, type RecordedRequest, type ScriptedResponse, type ScriptedServer, type SseEvent } from './sse-server.js'

/** A streamed HTTP 200 response: the events (raw, or a scripted turn), with optional timing and faults. */
export interface AnthropicStreamReply {
  kind?: 'stream'
  /** Raw events; takes precedence over `turn`. */
  events?: AnthropicWireEvent[]
  /** A turn rendered by `anthropicStreamEvents`. */
  turn?: AnthropicScriptedTurn
  headers?: Record<string, string>
  /** Waits before the status line and headers (a slow first byte). */
  firstByteDelayMs?: number
  /** Sends headers at once, then waits before the first event. */
  firstEventDelayMs?: number
  /** Waits between events. */
  eventDelayMs?: number
  /** Sends only the first N events, then ends the response cleanly (a stream cut before `message_stop`). */
  truncateAfter?: number
  /** Sends only the first N events, then keeps the connection open and silent. */
  stallAfter?: number
  /** Sends only the first N events, then resets the socket (a network error mid-body). */
  destroyAfter?: number
}

/** An error response with the API's JSON body `{ type: 'error', error: { type, message }, request_id }`. */
export interface AnthropicErrorReply {
  kind: 'error'
  errorType: AnthropicErrorType
  /** Defaults to the status the API uses for `errorType` (e.g. 529 for `overloaded_error`). */
  status?: number
  message?: string
  /** The `retry-after` header, in seconds. */
  retryAfterSeconds?: number
  headers?: Record<string, string>
  firstByteDelayMs?: number
}

/**
 * One reply the loopback Anthropic server sends to `POST /v1/messages`: a scripted stream or an API error.
 *
 * @example
 * server.enqueue({ kind: 'error', errorType: 'overloaded_error', retryAfterSeconds: 1 })
 */
export type AnthropicReply = AnthropicStreamReply | AnthropicErrorReply

let requestCounter = 0

/** Renders a reply as the scripted HTTP response the real API would send to `POST /v1/messages`. */
export function anthropicResponse(reply: AnthropicReply): ScriptedResponse {
  const requestId = `req_loopback_${++requestCounter}`
  const match = { method: 'POST', path: '/v1/messages' }
  if (reply.kind === 'error') {
    const headers: Record<string, string> = { 'request-id': requestId, ...reply.headers }
    if (reply.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.retryAfterSeconds)
    return {
      match,
      status: reply.status ?? anthropicErrorStatus[reply.errorType],
      headers,
      json: anthropicErrorBody(reply.errorType, reply.message, requestId),
      firstByteDelayMs: reply.firstByteDelayMs,
    }
  }
  const all = reply.events ?? (reply.turn ? anthropicStreamEvents(reply.turn) : [])
  const cut = reply.truncateAfter ?? reply.stallAfter ?? reply.destroyAfter
  const events: SseEvent[] = (cut === undefined ? all : all.slice(0, cut)).map((event) => ({ event: event.event, data: event.data }))
  return {
    match,
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'request-id': requestId, ...reply.headers },
    events,
    firstByteDelayMs: reply.firstByteDelayMs,
    firstEventDelayMs: reply.firstEventDelayMs,
    eventDelayMs: reply.eventDelayMs,
    ending: reply.stallAfter !== undefined ? 'hang' : reply.destroyAfter !== undefined ? 'destroy' : 'close',
  }
}

/** The loopback Anthropic server. */
export interface AnthropicMessagesServer {
  /** Base URL for the SDK (`new Anthropic({ baseURL })`): `http://127.0.0.1:<port>`. */
  readonly baseURL: string
  /** Every request received, in order (parsed JSON in `body`). */
  readonly requests: RecordedRequest[]
  /** The underlying scripted server, for raw responses and handlers. */
  readonly scripted: ScriptedServer
  /** Queues replies, served one per `POST /v1/messages` in order (raw responses: `scripted.enqueue`). */
  enqueue(...replies: AnthropicReply[]): this
  /** Replies still queued. */
  readonly pending: number
  /** Closes the server and destroys open connections (stalled streams included). */
  close(): Promise<void>
}

/** Options of `startAnthropicMessagesServer(options)`. */
export interface AnthropicMessagesServerOptions {
  /**
   * Serve bodies holding an unpaired surrogate escape (`"\ud800"`) like any other. By default they are refused as
   * the API refuses them: HTTP 400 "The request body is not valid JSON: no low surrogate in string…".
   */
  acceptLoneSurrogates?: boolean
}

/**
 * Starts the loopback Anthropic Messages server on 127.0.0.1. Like the API, it answers a body holding a lone
 * surrogate with a 400 (see `anthropicLoneSurrogateRejection`), whatever is queued.
 *
 * @example
 * const server = await startAnthropicMessagesServer()
 * server.enqueue({ turn: { blocks: [{ type: 'text', text: 'Hello' }] } })
 * const client = new Anthropic({ apiKey: 'test', baseURL: server.baseURL })
 */
export async function startAnthropicMessagesServer(options: AnthropicMessagesServerOptions = {}): Promise<AnthropicMessagesServer> {
  const scripted = await startScriptedServer(options.acceptLoneSurrogates ? {} : { rejectRequest: anthropicLoneSurrogateRejection })
  const api: AnthropicMessagesServer = {
    baseURL: scripted.url,
    requests: scripted.requests,
    scripted,
    enqueue(...replies) {
      scripted.enqueue(...replies.map(anthropicResponse))
      return api
    },
    get pending() {
      return scripted.pending
    },
    close: () => scripted.close(),
  }
  return api
}
