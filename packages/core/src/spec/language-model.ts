// The provider spec, version 1: a model streams parts; the kernel owns the loop.
import type { JsonSchema, JsonValue } from './json.js'
import type { ModelMessage, Usage } from './messages.js'

/** What a model supports and how large its window is: the kernel budgets the context and picks features from it. */
export interface ModelCapabilities {
  /** Context window in tokens. */
  contextWindow: number
  /** Largest output the model may produce, in tokens. */
  maxOutputTokens: number
  tools: boolean
  parallelTools: boolean
  reasoning: boolean
  structuredOutput: boolean
}

/** A tool as the model sees it: name, description and the JSON Schema of its input. */
export interface ToolSpecification {
  /** The name the model sees: `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string
  description: string
  inputSchema: JsonSchema
}

/** Whether the model may, must or must not call tools, or must call one named tool. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string }

/** One model call: the messages (system first), tools and tool choice, output limit, sampling, stop sequences, response format and provider options. */
export interface ModelRequest {
  /**
   * Messages in order; system instructions come first as `role: 'system'`. Read them during the call: the runtime
   * reuses this array for the run's next step (it appends the step's messages once the call has ended), so a
   * model that keeps a request after its call returns must copy `messages`.
   */
  messages: ModelMessage[]
  tools?: ToolSpecification[]
  toolChoice?: ToolChoice
  maxOutputTokens?: number
  temperature?: number
  topP?: number
  stopSequences?: string[]
  /** Structured output: the final text must be JSON matching the schema. */
  responseFormat?: { type: 'json'; schema: JsonSchema; name?: string }
  /** Options passed through to one provider, keyed by provider name. */
  providerOptions?: Record<string, Record<string, JsonValue>>
}

/** Why a model call stopped, in the provider-neutral terms the loop acts on. */
export type ModelFinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other'

/** Who answered a model call, as its provider reported it (`response-metadata` stream parts, merged). */
export interface ModelResponseInfo {
  /** The provider's id of the response. */
  id?: string
  /** The provider that answered (a fallback chain's link, not `fallback`). */
  provider?: string
  /** The model that answered, as the provider named it (may differ from the requested id: aliases, snapshots). */
  modelId?: string
}

/** One part of a model's stream: text and reasoning deltas, tool-call start / argument delta / end, response metadata, and the finish with usage. */
export type StreamPart =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string; signature?: string; redacted?: string }
  | { type: 'tool-call-start'; id: string; name: string }
  | { type: 'tool-call-delta'; id: string; argsDelta: string }
  | { type: 'tool-call-end'; id: string }
  | { type: 'usage'; usage: Usage }
  /** Who answered: the response id, and the provider and model as the provider reported them (a fallback chain names the link that answered). */
  | { type: 'response-metadata'; id?: string; modelId?: string; provider?: string }
  | { type: 'finish'; finishReason: ModelFinishReason; usage?: Usage; rawFinishReason?: string }
  | { type: 'error'; error: unknown }

/** Per-call options of `LanguageModel.stream`: the abort signal and extra HTTP headers. */
export interface ModelCallOptions {
  signal?: AbortSignal
  headers?: Record<string, string>
}

/**
 * A language model, version 1 of the spec.
 *
 * @example
 * for await (const part of model.stream({ messages }, { signal })) if (part.type === 'text-delta') write(part.delta)
 */
export interface LanguageModel {
  readonly specificationVersion: 'v1'
  /** Provider name, e.g. `openai`. */
  readonly provider: string
  readonly modelId: string
  readonly capabilities: ModelCapabilities
  stream(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<StreamPart>
}

/** An embedding model, version 1 of the spec. */
export interface EmbeddingModel {
  readonly specificationVersion: 'v1'
  readonly provider: string
  readonly modelId: string
  readonly dimensions: number
  readonly maxBatchSize?: number
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<{ embeddings: number[][]; usage?: { tokens: number } }>
}
