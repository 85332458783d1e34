// Public entry of @spindle/core: the user API. Helpers for plugin authors (store rules, secrets, abort handling,
// error markers) live in the `@spindle/core/plugin-kit` entry (src/plugin-kit/index.ts).
export { SpindleError, type SpindleErrorCode, type SpindleErrorOptions } from './errors/spindle-error.js'
export { ToolSchemaError } from './errors/tool-schema-error.js'
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
  SequenceConflictError,
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
  ModelResponseInfo,
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
export type { FinishReason, ListRunsOptions, NewRun, RunClaimExpectation, RunPatch, RunRecord, RunStatus, RunStore } from './spec/run-store.js'
export { endedRunStatus, runStatusOf } from './spec/run-status.js'
export type { RunError } from './spec/run-error.js'
export { runErrorOf } from './runtime/run-error-of.js'
export { ContextAdapterError } from './errors/context-adapter-error.js'
export type { ExecutionOutcome, ExecutionRecord, ExecutionStatus, ExecutionStore, NewExecution } from './spec/execution-store.js'
export {
  type BatchedStores,
  type StoreBatch,
  type StoreWrite,
  type StoreWriteResult,
  type StoreWriteResults,
  type StoreWriteResultsWanted,
} from './spec/store-batch.js'
export type { RunSnapshot, SnapshotStore } from './spec/snapshot-store.js'
export type { EmbeddingMatch, EmbeddingQuery, EmbeddingRecord, EmbeddingStore } from './spec/embedding-store.js'
export type { ArtifactRecord, ArtifactSource, ArtifactStore, PutArtifactOptions } from './spec/artifact-store.js'
export { type StoreKind, type Stores, storeKinds } from './spec/stores.js'
export { type AgentEvent, type AgentEventOf, type AgentEventPayload, type AgentEventType, type LaggedEvent, terminalEventTypes } from './spec/events.js'
export type { EventBus, SubscribeOptions } from './spec/event-bus.js'
export type { AcquireOptions, SessionGate, SessionGateState, SessionLease } from './spec/session-gate.js'

export { Extensions } from './extensions/extensions.js'
export type { RunJob, RunQueue, WorkOptions } from './spec/run-queue.js'
export { InProcessRunQueue, type InProcessRunQueueOptions } from './runtime/in-process-run-queue.js'
export { definePlugin, type Plugin } from './extensions/define-plugin.js'

export { ProviderRegistry, type ProviderFactory } from './providers/provider-registry.js'
export { fallbackModel } from './providers/fallback-model.js'
export { mockModel, type MockModel, type MockModelOptions, type MockScript, type MockTurn } from './providers/mock-model.js'
export { hashEmbedding, type HashEmbeddingOptions } from './providers/hash-embedding.js'

export type {
  HandoffTarget,
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
export { assertToolInputSchema } from './tools/assert-tool-input-schema.js'
export { ToolRegistry, toolEntries } from './tools/tool-registry.js'
export { assertToolName, sanitizeToolName, toolNamePattern } from './tools/tool-name.js'

export type { ContextAdapter, ContextBuildInput, ContextDraft } from './spec/context-adapter.js'
export type { CompactionInput, CompactionStrategy } from './spec/compaction-strategy.js'

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
  memoryStoreCounts,
  defaultMemoryRetention,
  type MemoryRetentionOptions,
  type MemoryStoreCounts,
  type MemoryStoresOptions,
} from './stores/memory/memory-stores.js'

// Request-scoped state (DESIGN §2.4): RuntimeStore helpers, runtime resources and runtime tools.
export type {
  RuntimeCleanupHandler,
  RuntimeRunOptions,
  RuntimeSnapshotOptions,
  RuntimeStoreKey,
  RuntimeStoreOptions,
  RuntimeValue,
} from './runtime-store/runtime-store.js'
export { createRuntime, withRuntime } from './runtime-store/with-runtime.js'
export { RUNTIME_CONTEXT_FIELD, type RuntimeContextField } from './runtime-store/runtime-context-field.js'
export { createRuntimeResourceRegistry, registerRuntimeResource } from './runtime-store/resource-registry.js'
export { createRuntimeTool, type RuntimeToolContext, type RuntimeToolDefinition } from './tools/create-runtime-tool.js'

// The kernel: runtime, policy, gate, events, context, compaction, tool execution.
export { AgentRuntime, type AgentRuntimeOptions, type RecoverResult, type RunStream, type SubscribeFilter } from './runtime/agent-runtime.js'
export type { RecoverOptions, RecoverOutcome, RecoverProgress } from './runtime/recover-runs.js'
export type { AgentSpec, ApprovalDecision, ModelReference, ResumeOptions, RunOutput, RunRequest } from './runtime/run-request.js'
export { runRequestSchema } from './runtime/run-request.js'
export { type AdmissionHook, admitRequest } from './runtime/admission.js'
export { transition, overBudget, type Next, type Outcome, type Transition, type TransitionLimits } from './runtime/transition.js'
export { addUsage, emptyUsage, initialRunState, type PendingCall, type RunState } from './runtime/run-state.js'
export { createRuntimePolicy, mergePolicy, runtimePolicySchema, type RuntimePolicy, type RuntimePolicyInput } from './policy/runtime-policy.js'
export { InProcessSessionGate, type InProcessSessionGateOptions } from './gate/in-process-session-gate.js'
export { InProcessEventBus } from './events/in-process-event-bus.js'
export { EventChannel } from './events/event-channel.js'
export { discardedSeqs, eventLogProblems, liveViewProblems, type SeenEvent } from './events/event-log-rules.js'
export { ContextPipeline, type BuiltContext, type ContextPipelineOptions } from './context/context-pipeline.js'
export { ContextWindow } from './context/context-window.js'
export { historyAdapter, instructionsAdapter } from './context/builtin-adapters.js'
export { countMessageTokens, countMessagesTokens, estimateTokenizer, type Tokenizer } from './context/tokenizer.js'
export { readArtifactTool, type ReadArtifactInput, type ReadArtifactToolOptions } from './context/read-artifact-tool.js'
export {
  calibratedTokenizer,
  tokenizerForModel,
  tokenizerProfiles,
  type CalibratedTokenizer,
  type CalibratedTokenizerOptions,
} from './context/calibrated-tokenizer.js'
export { CompactionService, type CompactionServiceOptions, type CompactRequest } from './compaction/compaction-service.js'
export { truncateCompaction } from './compaction/truncate-compaction.js'
export { ToolRuntime, type ExecuteCallsInput, type ExecuteCallsResult, type ToolCallOutcome } from './tools/tool-runtime.js'
export { ToolScope } from './tools/tool-scope.js'
export { truncateOutput, type TruncatedOutput } from './tools/truncate-output.js'

// Agent: the seeds' `new Agent({ name, instructions, model, tools })` on an AgentRuntime.
export { Agent, type AgentCallOptions, type AgentOptions, type AgentToolOptions } from './agent/agent.js'
export type { AgentStream } from './agent/agent-stream.js'
export { findHandoffTarget, handoff, type HandoffOptions } from './agent/handoff.js'

// Observability: synchronous event observers (tracing, metrics), secret redaction, model prices and cost.
export type { RuntimeObserver } from './spec/runtime-observer.js'
export { createRedactor, defaultSecretPatterns, redactionMarker, type Redactor, type RedactorOptions } from './observability/redactor.js'
export { costOf, findModelPrice, priceTable, priceUsage, type ModelPrice, type PriceTable } from './observability/price-table.js'
export { sessionUsage, type SessionUsage } from './observability/session-usage.js'
