// fromAiSdk: any AI SDK language model (spec v3 of `ai@6`, or v2) becomes a Spindle LanguageModel, with Spindle's
// retries, timeouts, abort, typed errors and reasoning signatures that survive the round trip.
import {
  ConfigurationError,
  createRedactor,
  type LanguageModel,
  type ModelCallOptions,
  type ModelCapabilities,
  type ModelRequest,
  type StreamPart,
} from '@spindle/core'
import { requestSecrets } from '@spindle/core/plugin-kit'
import type { AiSdkCallOptions, AiSdkLanguageModel, AiSdkStreamPart } from './ai-sdk-types.js'
import { toCallOptions } from './convert-request.js'
import { driveStream, type StreamTimeouts } from './drive-stream.js'
import { defaultRetryOptions, type RetryOptions } from './retry-policy.js'
import type { AiSdkCallMetadata } from './stream-mapper.js'

/** Options of `fromAiSdk()`: capabilities, provider name, retries, timeouts, the key to keep out of errors, and a metadata callback. */
export interface FromAiSdkOptions {
  /** What the kernel may rely on; defaults: 128k context, 16k output, tools, parallel tools, reasoning, structured output. */
  capabilities?: Partial<ModelCapabilities>
  /**
   * Provider name of the Spindle model (in errors, events and `provider:model` ids). Default: the AI SDK model's
   * provider up to its first dot (`google.generative-ai` → `google`).
   */
  provider?: string
  /** Retries before any part was yielded, for 408/409/429/5xx, connection errors and first-chunk timeouts (default 2). */
  maxRetries?: number
  /** Backoff tuning (initial delay 500 ms, cap 8 s; a Retry-After over 60 s is surfaced instead of waited for). */
  retry?: Partial<Omit<RetryOptions, 'maxRetries'>>
  /** Stream timeouts: until the first part (default 300 s) and between parts (default 120 s). */
  timeouts?: Partial<{ firstChunkMs: number; idleMs: number }>
  /**
   * Secrets to keep out of error messages (the API key the AI SDK provider was made with). `sk-…`, `Bearer …` and
   * the values of `*_KEY`/`*_TOKEN`/`*_SECRET` environment variables are removed anyway.
   */
  secrets?: string[]
  /** Receives the finish's provider metadata, the call's warnings and the raw finish reason, once a call finished. */
  onMetadata?: (metadata: AiSdkCallMetadata) => void
}

/** The Spindle model `fromAiSdk` returns; `aiSdkModel` is the wrapped AI SDK model. */
export interface AiSdkSpindleModel extends LanguageModel {
  readonly aiSdkModel: AiSdkLanguageModel
}

/**
 * Wraps an AI SDK language model (`@ai-sdk/google`, `@ai-sdk/mistral`, `@ai-sdk/amazon-bedrock`…) as a Spindle model.
 * The AI SDK model must not retry by itself (its `doStream` does not): Spindle retries before any output.
 *
 * @example
 * import { google } from '@ai-sdk/google'
 * const agent = new Agent({ name: 'helper', model: fromAiSdk(google('gemini-2.5-flash')), tools: { weather } })
 */
export function fromAiSdk(model: AiSdkLanguageModel, options: FromAiSdkOptions = {}): AiSdkSpindleModel {
  if (typeof model !== 'object' || model === null || typeof (model as { doStream?: unknown }).doStream !== 'function') {
    throw new ConfigurationError(
      '[spindle/ai-sdk] fromAiSdk needs an AI SDK language model (an object with doStream), e.g. fromAiSdk(google("gemini-2.5-flash"))',
    )
  }
  const version = (model as { specificationVersion?: unknown }).specificationVersion
  if (version !== 'v3' && version !== 'v2') {
    throw new ConfigurationError(
      `[spindle/ai-sdk] fromAiSdk supports AI SDK models of specification v3 (ai@6) and v2 (ai@5); this model is ${String(version)}. Install a provider package made for ai@6.`,
    )
  }
  for (const [key, value] of Object.entries({ ...options.retry, ...options.timeouts })) {
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0))
      throw new ConfigurationError(`[spindle/ai-sdk] fromAiSdk: ${key} must be a number of milliseconds >= 0`)
  }
  if (options.maxRetries !== undefined && !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0))
    throw new ConfigurationError('[spindle/ai-sdk] fromAiSdk: maxRetries must be an integer >= 0')
  const provider = options.provider ?? model.provider.split('.')[0] ?? model.provider
  const redactor = createRedactor({ secrets: options.secrets ?? [] })
  const retry: RetryOptions = { ...defaultRetryOptions, ...options.retry, maxRetries: options.maxRetries ?? defaultRetryOptions.maxRetries }
  const timeouts: StreamTimeouts = { firstChunkMs: options.timeouts?.firstChunkMs ?? 300_000, idleMs: options.timeouts?.idleMs ?? 120_000 }
  const capabilities: ModelCapabilities = {
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    tools: true,
    parallelTools: true,
    reasoning: true,
    structuredOutput: true,
    ...options.capabilities,
  }
  const doStream = (callOptions: AiSdkCallOptions) =>
    (model.doStream as (options: AiSdkCallOptions) => PromiseLike<{ stream: ReadableStream<AiSdkStreamPart> }>).call(model, callOptions)
  return {
    specificationVersion: 'v1',
    provider,
    modelId: model.modelId,
    capabilities,
    aiSdkModel: model,
    stream(request: ModelRequest, callOptions: ModelCallOptions = {}): AsyncIterable<StreamPart> {
      // The call's own credential headers (`Authorization`, `x-api-key`…) are secrets too: a server may echo them.
      const callSecrets = requestSecrets(undefined, callOptions.headers)
      const callRedactor = callSecrets.length === 0 ? redactor : createRedactor({ secrets: [...(options.secrets ?? []), ...callSecrets] })
      return driveStream({
        errors: { provider, redact: (text) => callRedactor.redact(text) },
        retry,
        timeouts,
        signal: callOptions.signal,
        // Converted per attempt, inside the call: the runtime reuses `request.messages` once the call has ended.
        open: (signal) => doStream(toCallOptions(request, provider, signal, callOptions.headers, version)),
        ...(options.onMetadata !== undefined && { onMetadata: options.onMetadata }),
      })
    },
  }
}
