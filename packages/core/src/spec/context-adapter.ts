// ContextAdapter: one ordered stage of the ContextPipeline that builds each step's model request.
import type { LanguageModel, ToolSpecification } from '../spec/language-model.js'
import type { ModelMessage } from '../spec/messages.js'
import type { CompactionRecord, SessionEntry } from '../spec/session-store.js'
import type { Stores } from '../spec/stores.js'
import type { RuntimeStore } from '../runtime-store/runtime-store.js'

/** The request being built; adapters add to it in order. */
export interface ContextDraft {
  /** System sections, joined into the first system message. */
  system: string[]
  /** Conversation messages, oldest first. */
  messages: ModelMessage[]
  tools: ToolSpecification[]
}

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
  runtime: RuntimeStore | undefined
  signal: AbortSignal
}

export interface ContextAdapter {
  readonly name: string
  /**
   * Adds to the draft before each step. An adapter with nothing to wait for should return nothing (not be
   * `async`): while every adapter is synchronous the run builds each request without an async round.
   */
  apply(draft: ContextDraft, input: ContextBuildInput): void | Promise<void>
}
