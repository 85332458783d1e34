// Wire types of the debugger routes (server/debugger-api.ts and the modules it calls).
import type { AgentEvent, ModelMessage } from '../types'

export interface ContextPart {
  kind: 'system' | 'memory' | 'summary' | 'history' | 'tool-results' | 'tool-schemas'
  label: string
  tokens: number
}

export interface ModelCallView {
  id: string
  runId: string
  step: number
  attempt: number
  provider: string
  modelId: string
  contextWindow: number
  startedAt: number
  durationMs?: number
  request: { messages: ModelMessage[]; tools: Array<{ name: string; description: string; inputSchema: unknown }>; settings: Record<string, unknown> }
  response: {
    parts: Array<{ type: string; [key: string]: unknown }>
    usage?: { inputTokens: number; outputTokens: number }
    finishReason?: string
    error?: string
  }
  composition: { parts: ContextPart[]; total: number; limit: number; outputReserve: number; perMessage: number[]; perTool: number[] }
}

export interface RunTreeCall {
  callId: string
  toolName: string
  toolId?: string
  status: 'ok' | 'error' | 'pending'
  durationMs?: number
  subRun?: RunTreeNode
}

export interface RunTreeNode {
  runId: string
  sessionId: string
  agent: string
  status: string
  parentRunId?: string
  steps: Array<{ step: number; finishReason?: string; tokens?: number; calls: RunTreeCall[]; handoffs: Array<{ from: string; to: string; callId: string }> }>
}

export interface ToolView {
  name: string
  id?: string
  description: string
  effect: string
  idempotent: boolean
  approval: 'always' | 'never' | 'per call'
  agent?: { name: string; kind: 'sub-run' | 'handoff' }
  inputSchema: unknown
}

export interface AgentsConfigView {
  agents: Array<{ name: string; role: 'main' | 'sub-agent'; description?: string; instructions?: string; model: string; tools: ToolView[] }>
  policy: Record<string, unknown>
  store: { kind: string; schema?: string }
  providers: Array<{ id: string; label: string; provider: string; demo: boolean; pricing?: { input: number; output: number; note?: string } }>
}

export interface SessionOverviewView {
  sessionId: string
  runs: Array<{
    runId: string
    status: string
    model?: string
    startedAt: number
    finishedAt?: number
    steps: number
    inputTokens: number
    outputTokens: number
    costUsd?: number
  }>
  tools: Array<{ runId: string; step: number; toolName: string; durationMs: number; ok: boolean; at: number }>
  totals: { inputTokens: number; outputTokens: number; costUsd?: number; steps: number; runs: number }
}

/** The run file (replay/run-file.ts), as far as the page reads it. */
export interface RunFileView {
  format: 'spindle.run-file'
  version: 1
  exportedAt: string
  run: { id: string; sessionId: string; status: string; request: Record<string, unknown> }
  events: AgentEvent[]
  snapshots: unknown[]
  journal: unknown[]
  sessionEntries: unknown[]
  modelCalls: unknown[]
  subRuns: unknown[]
}
