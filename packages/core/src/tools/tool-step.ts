// One step's tool calls as ToolRuntime takes and returns them: the input (tools, policy, journal, run ids, signal),
// the policy fields it reads, and what each call came to.
import type { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { PendingCall } from '../spec/run-state.js'
import type { ArtifactStore } from '../spec/artifact-store.js'
import type { AgentEvent, AgentEventPayload } from '../spec/events.js'
import type { ExecutionOutcome, ExecutionRecord, NewExecution } from '../spec/execution-store.js'
import type { JsonValue } from '../spec/json.js'
import type { ToolExecutionContext } from './tool.js'
import type { ToolPolicyLists, ToolScope } from './tool-scope.js'

/**
 * The runtime policy's fields a tool step reads (a `RuntimePolicy` has them all): declared here so that the tools
 * layer does not import the policy module, which imports the tool types.
 */
export interface ToolCallPolicy {
  maxParallelTools: number
  toolTimeoutMs: number
  maxToolOutputBytes: number
  /** Base64 bytes of the images one result sends as images (default 5,000,000); see tool-output-cap.ts. */
  maxToolMediaBytes?: number
  tools: ToolPolicyLists
  onViolation: 'stop' | 'tool_error'
}

/** What one tool call came to: its result or error, whether it was reused from the journal, and its duration. */
export interface ToolCallOutcome {
  callId: string
  toolName: string
  /** What goes into the context (possibly truncated). */
  result: JsonValue
  isError: boolean
  error?: { code: string; message: string }
  durationMs: number
  reused: boolean
  /** True when the call actually ran a tool (counts against maxToolCalls). */
  executed: boolean
}

/** The journal calls go through: an ExecutionStore, or the run's writer that batches its writes. */
export interface ToolJournal {
  /** The record as it is when the journal wrote it synchronously (the run's writer over the memory stores), else a promise of it. */
  start(execution: NewExecution): { record: ExecutionRecord; created: boolean } | Promise<{ record: ExecutionRecord; created: boolean }>
  /** May return nothing when the finish is queued for the step's next commit. */
  finish(key: string, outcome: ExecutionOutcome): Promise<unknown> | void
}

/** One step's tool calls and everything `ToolRuntime` needs to run them: tools, policy, journal, run ids, signal. */
export interface ExecuteCallsInput {
  runId: string
  sessionId: string
  step: number
  calls: PendingCall[]
  scope: ToolScope
  policy: ToolCallPolicy
  executions: ToolJournal
  artifacts: ArtifactStore
  runtime: RuntimeStore | undefined
  signal: AbortSignal
  emit(payload: AgentEventPayload | AgentEvent): void
  nested?: ToolExecutionContext['nested']
  /**
   * The most a result may take in the context, in bytes, whatever the tool or the policy allow: a share of the
   * model's context window (a result bigger than the window could never be sent). The rest goes to an artifact.
   */
  contextMaxOutputBytes?: number
}

/** The outcomes of one step's tool calls, and the policy violation that must end the run, if any. */
export interface ExecuteCallsResult {
  outcomes: ToolCallOutcome[]
  /** Set when a policy violation must end the run (`policy.onViolation === 'stop'`). */
  violation?: string
}
