// Public entry of @spindle/testing: conformance suites, wire-protocol servers and scripted-model helpers.
export {
  encodeNdjsonLine,
  encodeSseEvent,
  startScriptedServer,
  type RecordedRequest,
  type RequestMatcher,
  type ScriptedEnding,
  type ScriptedHandler,
  type ScriptedResponse,
  type ScriptedServer,
  type ScriptedServerOptions,
  type SseEvent,
} from './wire/sse-server.js'

export {
  describeArtifactStore,
  describeEmbeddingStore,
  describeExecutionStore,
  describeRunStore,
  describeSessionStore,
  describeSnapshotStore,
  describeStoreBatch,
  describeStores,
  storeConformanceRules,
} from './conformance/describe-suites.js'
export { fillListBounds, listWithUnusualBounds } from './conformance/list-bounds.js'
export { describeResumeRace, storesThatDieAt, type ResumeRaceBackend } from './crash/describe-resume-race.js'
export { artifactStoreRules, patternBytes } from './conformance/artifact-store-rules.js'
export { noisePng } from './fixtures/noise-png.js'
export { embeddingStoreRules } from './conformance/embedding-store-rules.js'
export { executionStoreRules } from './conformance/execution-store-rules.js'
export { runStoreRules } from './conformance/run-store-rules.js'
export { sessionStoreRules } from './conformance/session-store-rules.js'
export { snapshotStoreRules } from './conformance/snapshot-store-rules.js'
export { storeBatchRules } from './conformance/store-batch-rules.js'
export { runCheck, type ConformanceCheck, type ConformanceChecks, type StoreHarness, type StoreSuiteOptions } from './conformance/harness.js'
export { rejection, rule, ruleOf } from './conformance/rule.js'
export { describeErrorClass, errorClassProblems, type CheckedErrorClass } from './errors/describe-error-class.js'
export {
  compactionStrategyProblems,
  contextAdapterProblems,
  describeCompactionStrategy,
  describeContextAdapter,
  describeRuntimeObserver,
  runtimeObserverProblems,
  sampleSessionWindow,
} from './plugin-interfaces/describe-plugin-interfaces.js'
export { unicodeSamples } from './conformance/samples.js'
export {
  anthropicErrorBody,
  anthropicErrorEvent,
  anthropicErrorStatus,
  anthropicStreamEvents,
  type AnthropicErrorType,
  type AnthropicScriptedBlock,
  type AnthropicScriptedTurn,
  type AnthropicStopReason,
  type AnthropicWireEvent,
  type AnthropicWireUsage,
} from './wire/anthropic-events.js'
export {
  anthropicResponse,
  startAnthropicMessagesServer,
  type AnthropicErrorReply,
  type AnthropicMessagesServer,
  type AnthropicMessagesServerOptions,
  type AnthropicReply,
  type AnthropicStreamReply,
} from './wire/anthropic-messages-server.js'
export { anthropicLoneSurrogateRejection, findLoneSurrogateEscape, openaiLoneSurrogateRejection, type LoneSurrogateEscape } from './wire/lone-surrogates.js'
export { anthropicMessagesWire, anthropicWireEvents } from './wire/anthropic-messages-wire.js'
export { openaiResponsesEvents, openaiResponsesWire } from './wire/openai-responses-wire.js'
export { openaiChatEvents, openaiChatWire, openaiEmbeddingsResponse, type OpenAIChatEventsOptions } from './wire/openai-chat-wire.js'
export { openaiErrorFields, openaiHttpError } from './wire/openai-errors-wire.js'
export type {
  FinishReasonCase,
  WireAdapter,
  WireError,
  WireErrorKind,
  WireFinishReason,
  WireToolCall,
  WireTurn,
  WireUsage,
} from './provider-conformance/wire-adapter.js'
export { collectStream, parsedToolCalls, streamInvariantViolations, type CollectedStream } from './provider-conformance/collect-stream.js'
export {
  describeLanguageModel,
  providerCaseRule,
  runLanguageModelCase,
  type LanguageModelConformanceCase,
  type LanguageModelConformanceContext,
  type LanguageModelConformanceOptions,
} from './provider-conformance/describe-language-model.js'
export { assertStreamRules, streamRuleFixes, streamRuleViolations, type StreamRuleId, type StreamRuleViolation } from './provider-conformance/stream-rules.js'
export { providerCaseFixes } from './provider-conformance/provider-case-fixes.js'
