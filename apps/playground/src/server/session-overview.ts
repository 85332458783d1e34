// What `GET /api/sessions/:id/overview` answers: per run of a session, in time order, its tokens, cost and steps,
// and every tool call's latency: the data of the session overview's small plots.
import type { AgentRuntime, RunRecord, Usage } from '@spindle/core'
import type { ModelOption } from './compose-spindle.js'

export interface SessionOverviewRun {
  runId: string
  status: string
  model?: string
  startedAt: number
  finishedAt?: number
  steps: number
  inputTokens: number
  outputTokens: number
  /** US dollars, from the model's price in the picker (undefined when it has none). */
  costUsd?: number
}

export interface SessionOverview {
  sessionId: string
  runs: SessionOverviewRun[]
  tools: Array<{ runId: string; step: number; toolName: string; durationMs: number; ok: boolean; at: number }>
  totals: { inputTokens: number; outputTokens: number; costUsd?: number; steps: number; runs: number }
}

/** Cost from the picker's price per million tokens (the usage's own `costUsd` first, when a price table set it). */
function costOf(usage: Usage, model: ModelOption | undefined): number | undefined {
  if (usage.costUsd !== undefined) return usage.costUsd
  if (!model?.pricing) return undefined
  return (usage.inputTokens * model.pricing.input + usage.outputTokens * model.pricing.output) / 1_000_000
}

export async function sessionOverview(runtime: AgentRuntime, models: ModelOption[], sessionId: string): Promise<SessionOverview> {
  const records: RunRecord[] = await runtime.runs.listRuns({ sessionId, limit: 200 })
  records.sort((a, b) => a.createdAt - b.createdAt)
  const runs: SessionOverviewRun[] = []
  const tools: SessionOverview['tools'] = []
  for (const run of records) {
    const modelId = (run.request.agent as { model?: string } | undefined)?.model
    const costUsd = costOf(
      run.usage,
      models.find((model) => model.id === modelId),
    )
    runs.push({
      runId: run.id,
      status: run.status,
      ...(modelId ? { model: modelId } : {}),
      startedAt: run.startedAt ?? run.createdAt,
      ...(run.finishedAt ? { finishedAt: run.finishedAt } : {}),
      steps: run.step,
      inputTokens: run.usage.inputTokens,
      outputTokens: run.usage.outputTokens,
      ...(costUsd !== undefined ? { costUsd } : {}),
    })
    for (const event of await runtime.runs.listEvents(run.id)) {
      if (event.type === 'tool.result' || event.type === 'tool.error') {
        tools.push({
          runId: run.id,
          step: event.step,
          toolName: event.toolName,
          durationMs: event.durationMs,
          ok: event.type === 'tool.result',
          at: event.timestamp,
        })
      }
    }
  }
  const priced = runs.filter((run) => run.costUsd !== undefined)
  return {
    sessionId,
    runs,
    tools,
    totals: {
      inputTokens: runs.reduce((sum, run) => sum + run.inputTokens, 0),
      outputTokens: runs.reduce((sum, run) => sum + run.outputTokens, 0),
      ...(priced.length ? { costUsd: priced.reduce((sum, run) => sum + run.costUsd!, 0) } : {}),
      steps: runs.reduce((sum, run) => sum + run.steps, 0),
      runs: runs.length,
    },
  }
}
