// The Tool spec: what `defineTool` produces and `ToolRuntime` executes.
import type { z } from 'zod'
import type { ArtifactStore } from '../spec/artifact-store.js'
import type { AgentEvent } from '../spec/events.js'
import type { ExecutionRecord } from '../spec/execution-store.js'
import type { JsonSchema, JsonValue } from '../spec/json.js'
import type { RuntimeStore } from '../runtime-store/runtime-store.js'

/** What a tool may do to the world; the policy can require approval by class. */
export type ToolEffect = 'read' | 'write' | 'external' | 'irreversible'

/** A raw JSON Schema input (e.g. from an MCP server) with an optional validator. */
export interface JsonSchemaInput<Input = unknown> {
  readonly kind: 'json-schema'
  readonly jsonSchema: JsonSchema
  validate?(value: unknown): { success: true; value: Input } | { success: false; error: string }
}

/** A tool's input schema: a zod 4 schema, or a raw JSON Schema (`jsonSchema(...)`) with an optional validator. */
export type ToolInputSchema<Input> = z.ZodType<Input> | JsonSchemaInput<Input>

/** What a tool's `execute` receives besides its input: the run, step and call ids, the call's `idempotencyKey` (stable across resumes: pass it downstream), an abort signal, the request's RuntimeStore and the artifact store. */
export interface ToolExecutionContext {
  runId: string
  sessionId: string
  step: number
  callId: string
  /** The name the model called. */
  toolName: string
  /** `${runId}:${step}:${callId}`: pass it downstream so a service can de-duplicate retries. */
  idempotencyKey: string
  /** Aborted on cancel, run timeout or the tool's own timeout. */
  signal: AbortSignal
  /** The request-scoped RuntimeStore of this run, when the request carried one. */
  runtime: RuntimeStore | undefined
  artifacts: ArtifactStore
  /** Run a nested agent and forward its events into the parent's stream (used by `agent.asTool()`). */
  nested?: NestedRunHost
}

/** Lets a tool run a sub-agent whose events are nested in the parent's stream. */
export interface NestedRunHost {
  readonly agentRuntime: unknown
  readonly parentRunId: string
  /** Forwards a sub-run's event into the parent run's `stream()` (the event keeps its own runId and seq). */
  /** A promise when the parent's stream is past its high-water mark: await it (back-pressure). */
  forward?(event: AgentEvent): void | Promise<void>
}

/** What `reconcile` decided for a call that may have run before a crash: run it again, use a result, report an error, or leave its outcome unknown (the model is told to check). */
export type ReconcileDecision = { action: 'rerun' } | { action: 'result'; result: JsonValue } | { action: 'error'; message: string } | { action: 'unknown' }

/** A tool as the runtime executes it (what `defineTool` returns): schema, `execute`, and what keeps it safe — `idempotent`, `effect`, `needsApproval`, `timeoutMs`, `maxOutputBytes`, `reconcile`. */
export interface Tool<Input = any, Output = any> {
  /** The name the model sees (`^[a-zA-Z0-9_-]{1,64}$`) unless the tools object gives another key. */
  readonly name: string
  /** Identity in events and the journal; defaults to `name` (e.g. `excel.preview`). */
  readonly id: string
  readonly description: string
  readonly inputSchema: ToolInputSchema<Input>
  readonly outputSchema?: z.ZodType<Output>
  /** Safe to execute twice with the same arguments (re-run on resume). Default false. */
  readonly idempotent: boolean
  readonly effect: ToolEffect
  readonly needsApproval?: boolean | ((input: Input, context: ToolExecutionContext) => boolean | Promise<boolean>)
  readonly timeoutMs?: number
  /** Largest result, in bytes of JSON, kept whole in the context; more is truncated head-and-tail. */
  readonly maxOutputBytes?: number
  /** Set on a handoff tool (`handoff(agent)`): a successful call hands the rest of the run to this agent. */
  readonly handoff?: HandoffTarget
  execute(input: Input, context: ToolExecutionContext): Promise<Output> | Output
  /** Decides what to do on resume with a call journaled `started` but never finished (non-idempotent tools). */
  reconcile?(call: { args: Input; record: ExecutionRecord; idempotencyKey: string }): Promise<ReconcileDecision> | ReconcileDecision
}

/** The agent a handoff tool transfers the run to (an `Agent` or an agent spec). */
export interface HandoffTarget {
  readonly name: string
  readonly instructions?: string
  readonly model: unknown
  readonly tools?: unknown
}

/** The shape users pass to `tools` options: an object whose keys are the names the model sees, or an array. */
export type ToolSet = Record<string, Tool> | readonly Tool[]
