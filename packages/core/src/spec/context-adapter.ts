// ContextAdapter: one ordered stage of the ContextPipeline that builds each step's model request.
import type { LanguageModel, ToolSpecification } from './language-model.js'
import type { ModelMessage } from './messages.js'
import type { CompactionRecord, SessionEntry } from './session-store.js'
import type { Stores } from './stores.js'

/**
 * Types the spec names but a higher layer of core defines, filled in by declaration merging: the RuntimeStore
 * class (runtime-store/runtime-store.ts) adds `runtime: RuntimeStore`, so `ContextBuildInput.runtime` is that class
 * without spec/ importing it.
 */
// oxlint-disable-next-line no-empty-interface -- filled in by declaration merging
export interface ContextBuildTypes {}

type ContextRuntime = ContextBuildTypes extends { runtime: infer Runtime } ? Runtime : unknown

/** The request being built; adapters add to it in order. */
export interface ContextDraft {
  /** System sections, joined into the first system message. */
  system: string[]
  /** Conversation messages, oldest first. */
  messages: ModelMessage[]
  /** Tool specifications sent with the request. */
  tools: ToolSpecification[]
}

/** What an adapter is given besides the draft: the run, step, agent, model, window, tools, stores and runtime. */
export interface ContextBuildInput {
  runId: string
  sessionId: string
  step: number
  agentName: string
  instructions: string | undefined
  model: LanguageModel
  /** The session log entries inside the window: after the last compaction, oldest first. */
  window: SessionEntry[]
  /** The compaction the window starts after, if any. */
  compaction: CompactionRecord | undefined
  tools: ToolSpecification[]
  stores: Stores
  /** The run's RuntimeStore (request-scoped values), if the run has one. */
  runtime: ContextRuntime | undefined
  signal: AbortSignal
}

/**
 * One ordered stage of the context pipeline (spec v1), added with `extensions.addContextAdapter`.
 *
 * @example
 * extensions.addContextAdapter({ specificationVersion: 'v1', name: 'today', apply: (draft) => { draft.system.push(`Today is ${new Date().toDateString()}.`) } })
 */
export interface ContextAdapter {
  /**
   * The spec version the adapter implements. Packages set it (the conformance kit checks it); an adapter written
   * inline may leave it out, which means `'v1'`. Any other value is refused by `addContextAdapter`.
   */
  readonly specificationVersion?: 'v1'
  readonly name: string
  /**
   * Adds to the draft before each step. An adapter with nothing to wait for should return nothing (not be
   * `async`): while every adapter is synchronous the run builds each request without an async round.
   */
  apply(draft: ContextDraft, input: ContextBuildInput): void | Promise<void>
}
