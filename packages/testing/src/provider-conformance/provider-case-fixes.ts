// How to fix each case of the provider conformance suite: shown in the ConformanceError of a failing provider.
import type { LanguageModelConformanceCase } from './describe-language-model.js'

/**
 * How to fix a provider that fails each case of the provider conformance suite, in the words a provider author
 * needs; shown in the `ConformanceError` of a failing case.
 */
export const providerCaseFixes: Record<LanguageModelConformanceCase, string> = {
  text: 'POST to the wire’s path with the API key in a header, yield each text delta as a `text-delta` part as it arrives, and end with `finish` (reason `stop`)',
  'response-metadata': 'yield a `response-metadata` part with the response id and the model id the API reports',
  reasoning: 'yield the protocol’s reasoning/thinking deltas as `reasoning-delta` parts, before the text they precede',
  'request-mapping':
    'map every ModelRequest field to the body: system, user, assistant (text and tool calls with their ids), tool results, tools (name, description, JSON schema), toolChoice, maxOutputTokens, temperature — in conversation order',
  'structured-output': 'send `responseFormat.schema` in the protocol’s structured-output field and stream the JSON text back unchanged',
  'one-tool-call': 'turn a tool call into `tool-call-start` (id, name), `tool-call-delta` (arguments JSON text), `tool-call-end`, and finish with `tool-calls`',
  'parallel-tool-calls': 'keep each parallel tool call apart by its id/index, in the order the API sends them, and keep text that precedes them',
  'interleaved-tool-calls': 'route each argument delta to its own call by the protocol’s index/id; never append one call’s arguments to another',
  'argument-deltas': 'forward argument fragments as `tool-call-delta` parts as they arrive instead of buffering them into one blob',
  usage: 'report usage in a `usage` part or on `finish`: inputTokens includes cached tokens, cachedInputTokens and reasoningTokens when the API reports them',
  'finish-reasons':
    'map every raw finish reason of the protocol to a Spindle reason (stop, tool-calls, length, content-filter, other) and keep the raw value in `rawFinishReason`',
  'rate-limit-retry-after': 'retry a 429 before any part was yielded, waiting for its Retry-After / retry-after-ms header, up to maxRetries',
  'rate-limit-no-retries': 'with no retries left, fail with ProviderError { status: 429, isRetryable: true, retryAfterMs } parsed from Retry-After',
  'server-error-then-success': 'retry a 5xx with exponential backoff before any part was yielded',
  'retries-are-bounded': 'stop after maxRetries retries and fail with a ProviderError carrying the last HTTP status',
  'authentication-error': 'fail a 401 at once (isRetryable: false, no retry) and redact the API key from the message and details',
  'context-overflow': 'map the API’s “context length exceeded” error to ContextOverflowError (code context_overflow), without retrying',
  'in-band-error':
    'map an error line/event that arrives after HTTP 200 to a ProviderError with its status (5xx when the API gives none), keep the text yielded before it, and never retry once output was yielded',
  'truncated-before-finish': 'when the body ends without the protocol’s terminal event, fail with StreamInterruptedError (retryable) instead of finishing',
  'truncated-mid-tool-arguments':
    'never yield `tool-call-end` for a call whose arguments were cut off: end calls only when the turn completes, and fail with StreamInterruptedError',
  'connection-reset': 'map a socket error mid-body to a retryable StreamInterruptedError or ProviderError, never to a finish',
  'abort-mid-stream': 'pass the AbortSignal to the HTTP request (so the connection closes) and throw AbortedError (code aborted)',
  'abort-before-start': 'check the signal before sending: an aborted signal throws AbortedError without a finish',
  'abort-during-backoff': 'make retry waits abortable: an abort during backoff throws AbortedError at once',
  'slow-first-byte': 'wait for the first byte up to the first-chunk timeout before failing',
  'first-chunk-timeout': 'fail with a retryable error when no chunk arrives within the first-chunk timeout, and retry it when retries are allowed',
  'idle-timeout': 'fail with a retryable error when the stream stalls longer than the idle timeout between chunks, keeping the text already yielded',
}
