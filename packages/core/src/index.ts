// Public entry of @spindle/core: every documented symbol is exported here, and only here.
export { SpindleError, type SpindleErrorCode, type SpindleErrorOptions } from './errors/spindle-error.js'
export {
  AbortedError,
  AdmissionError,
  ConfigurationError,
  ConformanceError,
  ContextOverflowError,
  DisposedValueError,
  DuplicateError,
  NotFoundError,
  PolicyViolationError,
  ProviderError,
  type ProviderErrorOptions,
  RuntimeStoreError,
  SessionBusyError,
  StaleFenceError,
  StoreError,
  StreamInterruptedError,
  TimeoutError,
  ToolArgumentsError,
  ToolExecutionError,
  ToolTimeoutError,
} from './errors/errors.js'

export type { JsonObject, JsonPrimitive, JsonSchema, JsonValue } from './spec/json.js'
export type {
  AssistantMessage,
  FilePart,
  ModelMessage,
  ReasoningPart,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultPart,
  Usage,
  UserMessage,
} from './spec/messages.js'
export type {
  EmbeddingModel,
  LanguageModel,
  ModelCallOptions,
  ModelCapabilities,
  ModelFinishReason,
  ModelRequest,
  StreamPart,
  ToolChoice,
  ToolSpecification,
} from './spec/language-model.js'
export type {
  AppendOptions,
  CompactionRecord,
  ListEntriesOptions,
  ListSessionsOptions,
  SessionEntry,
  SessionEntryInput,
  SessionRecord,
  SessionStore,
} from './spec/session-store.js'
export type { FinishReason, ListRunsOptions, NewRun, RunPatch, RunRecord, RunStatus, RunStore } from './spec/run-store.js'
export type { ExecutionRecord, ExecutionStatus, ExecutionStore, NewExecution } from './spec/execution-store.js'
export type { RunSnapshot, SnapshotStore } from './spec/snapshot-store.js'
export type { EmbeddingMatch, EmbeddingQuery, EmbeddingRecord, EmbeddingStore } from './spec/embedding-store.js'
export type { ArtifactRecord, ArtifactSource, ArtifactStore, PutArtifactOptions } from './spec/artifact-store.js'
export { type StoreKind, type Stores, storeKinds } from './spec/stores.js'
export {
  type AgentEvent,
  type AgentEventOf,
  type AgentEventPayload,
  type AgentEventType,
  type LaggedEvent,
  terminalEventTypes,
} from './spec/events.js'
export type { EventBus, SubscribeOptions } from './spec/event-bus.js'
export type { AcquireOptions, SessionGate, SessionGateState, SessionLease } from './spec/session-gate.js'

export { Extensions, type RunQueue } from './extensions/extensions.js'
export { definePlugin, type Plugin } from './extensions/define-plugin.js'

export { ProviderRegistry, type ProviderFactory } from './providers/provider-registry.js'
export { fallbackModel } from './providers/fallback-model.js'
export { mockModel, type MockModel, type MockModelOptions, type MockScript, type MockTurn } from './providers/mock-model.js'
export { hashEmbedding, type HashEmbeddingOptions } from './providers/hash-embedding.js'

export type {
  JsonSchemaInput,
  NestedRunHost,
  ReconcileDecision,
  Tool,
  ToolEffect,
  ToolExecutionContext,
  ToolInputSchema,
  ToolSet,
} from './tools/tool.js'
export { defineTool, jsonSchema, parseToolInput, toolInputJsonSchema, type ToolDefinition } from './tools/define-tool.js'
export { ToolRegistry, toolEntries } from './tools/tool-registry.js'
export { assertToolName, sanitizeToolName, toolNamePattern } from './tools/tool-name.js'

export type { ContextAdapter, ContextBuildInput, ContextDraft } from './context/context-adapter.js'
export type { CompactionInput, CompactionStrategy } from './compaction/compaction-strategy.js'

export { RuntimeStore } from './runtime-store/runtime-store.js'
export type { RuntimeResourceDefinition, RuntimeResourceRegistry } from './runtime-store/resource-registry-types.js'

export {
  MemoryArtifactStore,
  MemoryEmbeddingStore,
  MemoryExecutionStore,
  MemoryRunStore,
  MemorySessionStore,
  MemorySnapshotStore,
  memoryStores,
} from './stores/memory/memory-stores.js'
export { cosineSimilarity } from './stores/cosine.js'
export { compareEmbeddingMatches, matchesEmbeddingFilter, rankEmbeddingMatches } from './stores/embedding-search.js'
export {
  artifactSourceChunks,
  clampArtifactRange,
  collectArtifactSource,
  readArtifactBytes,
  type CollectedArtifact,
} from './stores/artifact-bytes.js'
