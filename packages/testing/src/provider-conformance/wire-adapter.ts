// The protocol-neutral vocabulary of the provider conformance suite: scenarios (turns, errors) that a
// `WireAdapter` renders into one wire protocol's exact HTTP/SSE responses.
import type { ModelFinishReason } from '@spindle/core'
import type { ScriptedResponse } from '../wire/sse-server.js'

/** One tool call of a scripted turn; `argumentChunks` are sent as separate argument deltas. */
export interface WireToolCall {
  id: string
  name: string
  argumentChunks: string[]
}

/** Token usage in Spindle's terms: `inputTokens` counts every input token, cached ones included. */
export interface WireUsage {
  inputTokens: number
  outputTokens: number
  cachedInputTokens?: number
  reasoningTokens?: number
}

/** The finish reasons a wire can express (an error is a separate scenario). */
export type WireFinishReason = Exclude<ModelFinishReason, 'error'>

/**
 * A streamed model turn, protocol-neutral. An adapter renders it in the protocol's order:
 * reasoning, then text, then tool calls, then usage and the terminal events.
 */
export interface WireTurn {
  responseId?: string
  modelId?: string
  /** Reasoning (summary) deltas. */
  reasoning?: string[]
  /** Text deltas. */
  text?: string[]
  toolCalls?: WireToolCall[]
  /** Interleave the argument deltas of parallel tool calls (announce all, then alternate deltas). */
  interleaveToolCalls?: boolean
  usage?: WireUsage
  /** Defaults to `tool-calls` when there are tool calls, else `stop`. */
  finishReason?: WireFinishReason
  /** A protocol-specific raw reason that overrides the adapter's default for `finishReason`. */
  rawFinishReason?: string
  /**
   * Cut the stream short (the HTTP response still ends cleanly unless the response's `ending` says otherwise):
   * `before-finish` drops the terminal events; `mid-tool-arguments` stops right after the first
   * argument delta of the first tool call.
   */
  truncate?: 'before-finish' | 'mid-tool-arguments'
}

/** The kinds of failure a scenario can ask for; each adapter renders them as its API does. */
export type WireErrorKind = 'rate_limit' | 'server' | 'overloaded' | 'authentication' | 'invalid_request' | 'context_overflow'

/**
 * An error a conformance scenario asks the loopback server to send: its kind, HTTP status and message, an optional
 * `Retry-After`, and a secret the provider must keep out of the error it reports.
 */
export interface WireError {
  kind: WireErrorKind
  /** The HTTP status (or, for an in-band error, the status the provider must map it to). */
  status: number
  message: string
  /** `Retry-After` header in seconds. */
  retryAfterSeconds?: number
  /** `retry-after-ms` header. */
  retryAfterMs?: number
  /** A secret the API echoes inside the error message (a provider must never pass it on). */
  echoedSecret?: string
}

/** A finish-reason case: the turn to serve and the Spindle reason the provider must report. */
export interface FinishReasonCase {
  name: string
  turn: WireTurn
  expected: WireFinishReason
  /** The `rawFinishReason` the provider should report, when it reports one. */
  raw?: string
}

/**
 * Renders neutral scenarios into one wire protocol. `@spindle/testing` ships adapters for
 * OpenAI Responses (`openaiResponsesWire`) and Chat Completions (`openaiChatWire`); a third-party
 * provider writes one for its protocol and runs `describeLanguageModel` with it.
 *
 * @example
 * const myWire: WireAdapter = {
 *   protocol: 'my-protocol', path: '/v1/generate', features: { reasoning: false },
 *   streamTurn: (turn) => ({ match: { method: 'POST', path: '/v1/generate' }, events: renderMyEvents(turn) }),
 *   httpError: (error) => ({ status: error.status, json: { message: error.message } }),
 *   inBandError: (before, error) => ({ events: [...renderMyEvents({ ...before, truncate: 'before-finish' }), { event: 'error', data: { message: error.message } }] }),
 *   finishReasonCases: [{ name: 'stop', turn: { text: ['ok'] }, expected: 'stop' }],
 * }
 */
export interface WireAdapter {
  /** A short name for test titles, e.g. `openai-responses`. */
  readonly protocol: string
  /** The path the model posts its streaming requests to, e.g. `/v1/responses`. */
  readonly path: string
  readonly features: {
    /** The protocol streams reasoning deltas. */
    reasoning: boolean
    /** The protocol reports cached input tokens (default true). */
    cachedInputTokens?: boolean
    /** The protocol reports reasoning tokens (default: the value of `reasoning`). */
    reasoningTokens?: boolean
  }
  /** A streamed turn as an HTTP 200 SSE response. */
  streamTurn(turn: WireTurn): ScriptedResponse
  /** An HTTP error response (status, the protocol's error body and the retry headers). */
  httpError(error: WireError): ScriptedResponse
  /** HTTP 200 whose stream carries `before`'s deltas, then an in-band error event (never a terminal event). */
  inBandError(before: WireTurn, error: WireError): ScriptedResponse
  /** Every finish reason the protocol can express. */
  readonly finishReasonCases: readonly FinishReasonCase[]
}
