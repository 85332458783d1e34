// Wire types of the playground API (what the server sends; never an API key).
import type { AgentEvent, ExecutionRecord, ModelMessage, RunSnapshot, SessionEntry, SessionGateState, SessionRecord, Usage } from '@spindle/core'

export type { AgentEvent, ExecutionRecord, ModelMessage, RunSnapshot, SessionEntry, SessionGateState, SessionRecord, Usage }

export interface ModelOption {
  id: string
  label: string
  demo: boolean
  pricing?: { input: number; output: number; note?: string }
}

export interface PlaygroundConfigView {
  models: ModelOption[]
  store: 'sqlite' | 'postgres'
  tools: string[]
  limits: { messageChars: number }
}

/** The answer to a message: its run, or `queued` (the session is busy) with the ticket that names the run later. */
export interface StartedRun {
  sessionId: string
  runId?: string
  queued: boolean
  ticket: string
}

export interface RunSummary {
  id: string
  sessionId: string
  status: 'queued' | 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled' | 'interrupted'
  finishReason?: string
  step: number
  usage: Usage
  error?: { code: string; message: string }
  model?: string
  input?: unknown
  /** The ticket of the message that started the run. */
  ticket?: string
  createdAt: number
  startedAt?: number
  finishedAt?: number
}

export interface RunDetail {
  run: RunSummary & { request: unknown; lease?: { owner: string; expiresAt: number } }
  events: AgentEvent[]
  snapshots: RunSnapshot[]
  journal: ExecutionRecord[]
  gate: SessionGateState
  backgroundError?: string
}
