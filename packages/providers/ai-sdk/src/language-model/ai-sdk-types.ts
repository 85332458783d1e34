// The AI SDK model specifications the adapter accepts: version 3 (what `ai@6` uses) and version 2 (`ai@5`).
import type { LanguageModelV2, LanguageModelV2StreamPart, LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider'

/** An AI SDK language model of a specification version that runs on Node 20 (`v3`, `v2`). */
export type AiSdkLanguageModel = LanguageModelV3 | LanguageModelV2

/** A stream part of either specification (the shapes the adapter reads are shared, finish and usage excepted). */
export type AiSdkStreamPart = LanguageModelV3StreamPart | LanguageModelV2StreamPart

export type AiSdkCallOptions = LanguageModelV3CallOptions
