// Public entry of @spindle/ai-sdk: AI SDK models, embedding models and tools in; the UI message stream out.
export { fromAiSdk, type AiSdkSpindleModel, type FromAiSdkOptions } from './language-model/from-ai-sdk.js'
export type { AiSdkLanguageModel } from './language-model/ai-sdk-types.js'
export type { AiSdkCallMetadata } from './language-model/stream-mapper.js'
export type { RetryOptions } from './language-model/retry-policy.js'
export { mapAiSdkError, retryAfterFromHeaders, type ErrorMappingContext } from './errors/map-ai-sdk-error.js'
export { fromAiSdkEmbedding, type AiSdkEmbeddingModel, type FromAiSdkEmbeddingOptions } from './embedding/from-ai-sdk-embedding.js'
export { fromAiSdkTool, type AiSdkTool, type FromAiSdkToolOptions } from './tools/from-ai-sdk-tool.js'
export { aiSdkProvider, type AiSdkProviderLike, type AiSdkProviderOptions, type AiSdkProviderPlugin } from './provider/ai-sdk-provider.js'
export {
  toUIMessageStream,
  toUIMessageStreamResponse,
  uiMessageStreamHeaders,
  UIMessageChunkMapper,
  type ToUIMessageStreamOptions,
} from './ui/to-ui-message-stream.js'
export type { SpindleMessageMetadata, UIMessageChunk, UIMessageLike, UIMessagePartLike } from './ui/ui-message-chunk.js'
export { fromUIMessages, type FromUIMessagesResult, type UIApproval } from './ui/from-ui-messages.js'
export { runEvents, lastEventSeq, type RunEventsOptions } from './ui/run-events.js'
export { approveAndResume } from './ui/approve-and-resume.js'
export { streamDetached } from './ui/stream-detached.js'
