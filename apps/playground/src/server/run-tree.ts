// The run tree: a run's steps, each with its tool calls; an `asTool` call holds the sub-run it started (recursively)
// and a handoff names the agent that took over. What the debugger's "Agent tree" panel shows.
import { createHash } from 'node:crypto'
import type { AgentEvent, AgentRuntime, ExecutionRecord, RunRecord } from '@spindle/core'

export interface RunTreeCall {
  callId: string
  toolName: string
  toolId?: string
  status: 'ok' | 'error' | 'pending'
  durationMs?: number
  /** The sub-run this call started (an agent used as a tool). */
  subRun?: RunTreeNode
}

export interface RunTreeStep {
  step: number
  finishReason?: string
  tokens?: number
  calls: RunTreeCall[]
  /** `agent.handoff` events of the step: the agent that continues the run from here. */
  handoffs: Array<{ from: string; to: string; callId: string }>
}

export interface RunTreeNode {
  runId: string
  sessionId: string
  agent: string
  status: string
  parentRunId?: string
  steps: RunTreeStep[]
}

/**
 * The sub-run of an agent tool's call is found from the call's idempotency key, the way `Agent.asTool()` names it:
 * a session `sub_<sha256(key)[0..40]>`, the key itself as the run's idempotency key.
 */
export async function childRunsOf(
  runtime: AgentRuntime,
  runId: string,
  journal?: ExecutionRecord[],
): Promise<Array<{ key: string; step: number; callId: string; run: RunRecord }>> {
  const calls = journal ?? (await runtime.executions.listByRun(runId))
  const found: Array<{ key: string; step: number; callId: string; run: RunRecord }> = []
  for (const call of calls) {
    const sessionId = `sub_${createHash('sha256').update(call.key).digest('hex').slice(0, 40)}`
    const runs = await runtime.runs.listRuns({ sessionId, limit: 5 })
    const run = runs.find((candidate) => candidate.idempotencyKey === call.key || candidate.request.parentRunId === runId)
    if (run) found.push({ key: call.key, step: call.step, callId: call.callId, run })
  }
  return found
}

/** The tree under `run`, at most `depth` levels of sub-runs deep. */
export async function runTree(runtime: AgentRuntime, run: RunRecord, depth = 4): Promise<RunTreeNode> {
  const [events, journal] = await Promise.all([runtime.runs.listEvents(run.id), runtime.executions.listByRun(run.id)])
  const children = depth > 0 ? await childRunsOf(runtime, run.id, journal) : []
  const steps = stepsOf(events)
  for (const child of children) {
    const step = steps.get(child.step) ?? addStep(steps, child.step)
    const call = step.calls.find((candidate) => candidate.callId === child.callId) ?? { callId: child.callId, toolName: '(call)', status: 'pending' as const }
    if (!step.calls.includes(call)) step.calls.push(call)
    call.subRun = await runTree(runtime, child.run, depth - 1)
  }
  const agent = (run.request.agent as { name?: string } | undefined)?.name ?? '?'
  const parentRunId = typeof run.request.parentRunId === 'string' ? run.request.parentRunId : undefined
  return {
    runId: run.id,
    sessionId: run.sessionId,
    agent,
    status: run.status,
    ...(parentRunId ? { parentRunId } : {}),
    steps: [...steps.values()].sort((a, b) => a.step - b.step),
  }
}

function addStep(steps: Map<number, RunTreeStep>, step: number): RunTreeStep {
  const created: RunTreeStep = { step, calls: [], handoffs: [] }
  steps.set(step, created)
  return created
}

/** Steps from the log: a step redone after a resume keeps one entry (its last calls win). */
function stepsOf(events: AgentEvent[]): Map<number, RunTreeStep> {
  const steps = new Map<number, RunTreeStep>()
  const calls = new Map<string, RunTreeCall>()
  for (const event of events) {
    // Step 0 is the run's start (its first snapshot), not a model step.
    if (!('step' in event) || event.step < 1) continue
    const step = steps.get(event.step) ?? addStep(steps, event.step)
    switch (event.type) {
      case 'tool.call': {
        const call: RunTreeCall = { callId: event.callId, toolName: event.toolName, status: 'pending' }
        step.calls = step.calls.filter((existing) => existing.callId !== event.callId).concat(call)
        calls.set(event.callId, call)
        break
      }
      case 'tool.result':
      case 'tool.error': {
        const call = calls.get(event.callId)
        if (!call) break
        call.status = event.type === 'tool.result' ? 'ok' : 'error'
        call.durationMs = event.durationMs
        if (event.toolId) call.toolId = event.toolId
        break
      }
      case 'agent.handoff':
        step.handoffs.push({ from: event.from, to: event.to, callId: event.callId })
        break
      case 'step.finished':
        step.finishReason = event.finishReason
        step.tokens = event.usage.inputTokens + event.usage.outputTokens
        break
    }
  }
  return steps
}
