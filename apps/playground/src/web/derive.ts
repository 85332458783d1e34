// Derives the chat transcript, the timeline and pending approvals from a run's ordered events.
import type { AgentEvent, RunSummary, Usage } from './types'
import { inputText } from './format'

export type TranscriptItem =
  | { kind: 'user'; key: string; text: string }
  | { kind: 'assistant'; key: string; step: number; text: string }
  | { kind: 'tool'; key: string; callId: string; toolName: string; args: unknown; status: ToolStatus; result?: unknown; error?: string; durationMs?: number }
  | { kind: 'status'; key: string; text: string; tone: 'info' | 'warn' | 'error' }

/** `cancelled` / `not run`: the run ended before the call ran; `denied`: the user refused it (it never ran either). */
export type ToolStatus = 'called' | 'running' | 'awaiting approval' | 'done' | 'error' | 'denied' | 'cancelled' | 'not run'

/** The kernel's error code for a call the user denied (an answer, not a failure of the tool). */
export const deniedCode = 'approval_denied'

const unfinished = new Set<ToolStatus>(['called', 'running', 'awaiting approval'])

/**
 * The `run.resumed` events that only closed their run: cancelling a suspended or interrupted run resumes it to end
 * it (`run.resumed`, a snapshot, `run.finished: cancelled`), which is no resume to show.
 */
function closingResumes(events: AgentEvent[]): Set<number> {
  const closing = new Set<number>()
  let resumed: number | undefined
  for (const event of events) {
    if (event.type === 'run.resumed') resumed = event.seq
    else if (event.type === 'run.finished' && event.finishReason === 'cancelled' && resumed !== undefined) closing.add(resumed)
    else if (event.type !== 'snapshot.saved') resumed = undefined
  }
  return closing
}

export function transcript(events: AgentEvent[]): TranscriptItem[] {
  const items: TranscriptItem[] = []
  const assistants = new Map<number, Extract<TranscriptItem, { kind: 'assistant' }>>()
  const tools = new Map<string, Extract<TranscriptItem, { kind: 'tool' }>>()
  const closing = closingResumes(events)
  // "Waiting for your approval" while the run waits; once it goes on or ends, it becomes history.
  let waiting: Extract<TranscriptItem, { kind: 'status' }> | undefined
  const moveOn = () => {
    if (waiting) replace(items, { ...waiting, text: 'Waited for approval', tone: 'info' })
    waiting = undefined
  }
  // Calls the run never ran (it ended first) stop looking as if they were about to.
  const end = (finishReason: string) => {
    moveOn()
    for (const tool of tools.values()) {
      if (unfinished.has(tool.status)) update(items, tools, tool.callId, { status: finishReason === 'cancelled' ? 'cancelled' : 'not run' })
    }
  }
  for (const event of events) {
    switch (event.type) {
      case 'run.started':
        items.push({ kind: 'user', key: `u${event.seq}`, text: inputText(event.input) })
        break
      case 'run.resumed':
        moveOn()
        if (!closing.has(event.seq)) items.push({ kind: 'status', key: `r${event.seq}`, text: `Resumed from step ${event.fromStep}`, tone: 'info' })
        break
      case 'text.delta': {
        let item = assistants.get(event.step)
        if (!item) {
          item = { kind: 'assistant', key: `a${event.seq}`, step: event.step, text: '' }
          assistants.set(event.step, item)
          items.push(item)
        }
        item.text += event.delta
        break
      }
      case 'tool.call': {
        const item = {
          kind: 'tool' as const,
          key: `t${event.callId}`,
          callId: event.callId,
          toolName: event.toolName,
          args: event.args,
          status: 'called' as const,
        }
        if (!tools.has(event.callId)) items.push(item)
        tools.set(event.callId, { ...tools.get(event.callId), ...item })
        replace(items, tools.get(event.callId)!)
        break
      }
      case 'tool.started':
        update(items, tools, event.callId, { status: 'running' })
        break
      case 'approval.requested':
        update(items, tools, event.callId, { status: 'awaiting approval' })
        break
      case 'tool.result':
        update(items, tools, event.callId, { status: 'done', result: event.result, durationMs: event.durationMs })
        break
      case 'tool.error':
        update(items, tools, event.callId, {
          status: event.error.code === deniedCode ? 'denied' : 'error',
          error: event.error.message,
          durationMs: event.durationMs,
        })
        break
      case 'run.finished':
        if (event.finishReason === 'awaiting_approval') {
          waiting = { kind: 'status', key: `f${event.seq}`, text: 'Waiting for your approval', tone: 'warn' }
          items.push(waiting)
          break
        }
        end(event.finishReason)
        if (event.finishReason !== 'stop') items.push({ kind: 'status', key: `f${event.seq}`, text: `Run ended: ${event.finishReason}`, tone: 'warn' })
        break
      case 'run.failed':
        end('error')
        items.push({ kind: 'status', key: `f${event.seq}`, text: `Run failed (${event.error.code}): ${event.error.message}`, tone: 'error' })
        break
    }
  }
  return items
}

/**
 * How a run shown from its persisted messages ended, in the words its live transcript uses; undefined for a final
 * answer (or a run still going). Without it a cancelled or failed run would read as a question left unanswered.
 */
export function runOutcome(run: Pick<RunSummary, 'status' | 'finishReason' | 'error'>, key: string): TranscriptItem | undefined {
  switch (run.status) {
    case 'completed':
      return run.finishReason && run.finishReason !== 'stop' ? { kind: 'status', key, text: `Run ended: ${run.finishReason}`, tone: 'warn' } : undefined
    case 'cancelled':
      return { kind: 'status', key, text: 'Run ended: cancelled', tone: 'warn' }
    case 'failed':
      return { kind: 'status', key, text: run.error ? `Run failed (${run.error.code}): ${run.error.message}` : 'Run failed', tone: 'error' }
    case 'interrupted':
      return {
        kind: 'status',
        key,
        text: 'Run interrupted (killed, or its server stopped): the step in progress was discarded and will be redone on Resume; resume or cancel it; a message sent meanwhile waits',
        tone: 'warn',
      }
    case 'suspended':
      return { kind: 'status', key, text: 'Waiting for your approval: open the run to decide', tone: 'warn' }
    default:
      return undefined
  }
}

function replace(items: TranscriptItem[], item: TranscriptItem): void {
  const index = items.findIndex((candidate) => candidate.key === item.key)
  if (index >= 0) items[index] = item
}

function update(
  items: TranscriptItem[],
  tools: Map<string, Extract<TranscriptItem, { kind: 'tool' }>>,
  callId: string,
  patch: Partial<Extract<TranscriptItem, { kind: 'tool' }>>,
): void {
  const current = tools.get(callId)
  if (!current) return
  const next = { ...current, ...patch }
  tools.set(callId, next)
  replace(items, next)
}

export interface TimelineTool {
  callId: string
  toolName: string
  args: unknown
  result?: unknown
  error?: string
  durationMs?: number
  approval?: boolean
  /** The user denied the call. */
  denied?: boolean
  reused?: boolean
  /** The run ended before the call ran. */
  notRun?: 'cancelled' | 'not run'
  at: number
}

export interface TimelineStep {
  step: number
  /** When the step (last) started: its bar starts here. */
  at: number
  /** When the step first started: its place in the timeline's time order. */
  firstAt: number
  durationMs?: number
  usage?: Usage
  delta?: Usage
  finishReason?: string
  /** How a step that never finished ended: the run failed, or was cancelled, during it. */
  outcome?: 'failed' | 'cancelled'
  textChars: number
  tools: TimelineTool[]
}

export interface Timeline {
  startedAt?: number
  steps: TimelineStep[]
  marks: Array<{ at: number; label: string; tone: 'info' | 'warn' | 'error' }>
  usage?: Usage
  /** The run's end: `ok` for a final answer, `error` for a failure, `warn` for any other reason. */
  finished?: { reason: string; at: number; tone: 'ok' | 'warn' | 'error' }
}

export function timeline(events: AgentEvent[]): Timeline {
  const result: Timeline = { steps: [], marks: [] }
  const steps = new Map<number, TimelineStep>()
  const toolByCall = new Map<string, TimelineTool>()
  let previous: Usage = { inputTokens: 0, outputTokens: 0 }
  const stepOf = (step: number, at: number) => {
    let entry = steps.get(step)
    if (!entry) {
      entry = { step, at, firstAt: at, textChars: 0, tools: [] }
      steps.set(step, entry)
      result.steps.push(entry)
    }
    return entry
  }
  const closing = closingResumes(events)
  const end = (finishReason: string, at: number) => {
    for (const tool of toolByCall.values()) {
      if (tool.result === undefined && tool.error === undefined) tool.notRun = finishReason === 'cancelled' ? 'cancelled' : 'not run'
    }
    // A step still going when the run ended ends with it: failed, or cancelled, at that time (not "streaming…").
    for (const step of result.steps) {
      if (step.finishReason !== undefined || step.outcome !== undefined) continue
      step.outcome = finishReason === 'error' ? 'failed' : 'cancelled'
      step.durationMs = (step.durationMs ?? 0) + Math.max(0, at - step.at)
    }
  }
  for (const event of events) {
    result.startedAt ??= event.timestamp
    switch (event.type) {
      case 'run.resumed':
        if (!closing.has(event.seq)) result.marks.push({ at: event.timestamp, label: `resumed from step ${event.fromStep}`, tone: 'info' })
        break
      case 'step.started': {
        const entry = stepOf(event.step, event.timestamp)
        entry.at = event.timestamp
        break
      }
      case 'text.delta':
        stepOf(event.step, event.timestamp).textChars += event.delta.length
        break
      case 'tool.call': {
        const tool: TimelineTool = { callId: event.callId, toolName: event.toolName, args: event.args, at: event.timestamp }
        toolByCall.set(event.callId, tool)
        stepOf(event.step, event.timestamp).tools.push(tool)
        break
      }
      case 'approval.requested': {
        const tool = toolByCall.get(event.callId)
        if (tool) tool.approval = true
        break
      }
      case 'tool.result': {
        const tool = toolByCall.get(event.callId)
        if (tool) Object.assign(tool, { result: event.result, durationMs: event.durationMs, reused: event.reused })
        break
      }
      case 'tool.error': {
        const tool = toolByCall.get(event.callId)
        if (tool) Object.assign(tool, { error: event.error.message, durationMs: event.durationMs, denied: event.error.code === deniedCode })
        break
      }
      case 'step.finished': {
        const entry = stepOf(event.step, event.timestamp)
        // A step finishes again after its approval (its tools ran then): both parts add up, the model call included.
        entry.durationMs = (entry.durationMs ?? 0) + event.durationMs
        entry.usage = event.usage
        entry.finishReason = event.finishReason
        entry.delta = {
          inputTokens: (entry.delta?.inputTokens ?? 0) + event.usage.inputTokens - previous.inputTokens,
          outputTokens: (entry.delta?.outputTokens ?? 0) + event.usage.outputTokens - previous.outputTokens,
        }
        previous = event.usage
        result.usage = event.usage
        break
      }
      case 'compaction.applied':
        result.marks.push({ at: event.timestamp, label: `compacted (${event.strategy}) ${event.tokensBefore}→${event.tokensAfter} tokens`, tone: 'info' })
        break
      case 'run.finished':
        result.usage = event.usage
        result.finished = { reason: event.finishReason, at: event.timestamp, tone: event.finishReason === 'stop' ? 'ok' : 'warn' }
        if (event.finishReason !== 'awaiting_approval') end(event.finishReason, event.timestamp)
        break
      case 'run.failed':
        end('error', event.timestamp)
        result.usage = event.usage
        result.finished = { reason: `failed (${event.error.code}): ${event.error.message}`, at: event.timestamp, tone: 'error' }
        break
    }
  }
  return result
}

/** Calls awaiting a human decision: requested, and not answered since. */
export function pendingApprovals(events: AgentEvent[]): Array<{ callId: string; toolName: string; args: unknown }> {
  const pending = new Map<string, { callId: string; toolName: string; args: unknown }>()
  for (const event of events) {
    if (event.type === 'approval.requested') pending.set(event.callId, { callId: event.callId, toolName: event.toolName, args: event.args })
    else if (event.type === 'tool.result' || event.type === 'tool.error' || event.type === 'run.resumed')
      pending.delete((event as { callId?: string }).callId ?? '')
  }
  return [...pending.values()]
}

export function isTerminal(events: AgentEvent[]): boolean {
  const last = events.at(-1)
  return last?.type === 'run.failed' || (last?.type === 'run.finished' && last.finishReason !== 'awaiting_approval')
}
