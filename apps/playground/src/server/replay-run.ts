// Edit and replay, and retry: a new session holding a run's log up to one of its snapshots (edited), and a new run
// there that starts from that point. The source run and session stay as they were.
import { type JsonObject, NotFoundError, type RunRecord, type RunSnapshot, type SessionEntry } from '@spindle/core'
import type { Spindle } from './compose-spindle.js'
import { planReplay, type ReplayEdits, type ReplayPlan } from './replay-entries.js'
import type { RunManager, StartedRun } from './run-manager.js'
import { runtimeStateOf } from './runtime-state.js'
import { newSessionId } from './session-id.js'
import { messageText } from './state-diff.js'

export interface ReplayRequest {
  runId: string
  /** The snapshot to start from; the run's latest when absent (a retry). */
  version?: number
  edits?: ReplayEdits
  /** The runtime state the new session's runs get in their RuntimeStore; the source session's when absent. */
  runtimeState?: JsonObject
  /** The model of the new run; the source run's when absent. */
  model?: string
  /** `retry`: a failed run's retry (named so in the new session's title and metadata). */
  purpose?: 'replay' | 'retry'
}

export interface ReplayStarted extends StartedRun {
  notRun: string[]
  droppedAnswer: boolean
}

/** Thrown for a replay whose edits cannot apply (an unknown message or call, a tool message given text). */
export class ReplayEditError extends Error {}

/** The log a replay starts from: the source session's entries up to the snapshot, and where the run's own begin. */
export async function replaySource(
  spindle: Spindle,
  run: RunRecord,
  version?: number,
): Promise<{ snapshot?: RunSnapshot; entries: SessionEntry[]; firstSeq: number }> {
  const { runtime } = spindle
  const snapshot = version === undefined ? await runtime.snapshots.latest(run.id) : await runtime.snapshots.get(run.id, version)
  if (version !== undefined && !snapshot) throw new NotFoundError(`[spindle/playground] run "${run.id}" has no snapshot version ${version}`)
  if (snapshot) {
    const lastSeq = Number(snapshot.state.lastSeq ?? 0)
    const entries = await runtime.sessions.listEntries(run.sessionId, { before: lastSeq + 1 })
    return { snapshot, entries, firstSeq: Number(snapshot.state.firstSeq ?? entries.find((entry) => entry.runId === run.id)?.seq ?? lastSeq + 1) }
  }
  // No snapshot (the run failed before its first): its own entries, whatever it logged.
  const all = await runtime.sessions.listEntries(run.sessionId)
  const own = all.filter((entry) => entry.runId === run.id)
  const last = own.at(-1)?.seq ?? 0
  return { entries: all.filter((entry) => entry.seq <= last), firstSeq: own[0]?.seq ?? last + 1 }
}

export async function replayRun(spindle: Spindle, manager: RunManager, request: ReplayRequest): Promise<ReplayStarted> {
  const { runtime } = spindle
  const run = await runtime.runs.getRun(request.runId)
  if (!run) throw new NotFoundError(`[spindle/playground] no run "${request.runId}"`)
  const { snapshot, entries, firstSeq } = await replaySource(spindle, run, request.version)
  let plan: ReplayPlan
  try {
    plan = planReplay(entries, firstSeq, request.edits)
  } catch (error) {
    throw new ReplayEditError(error instanceof Error ? error.message : String(error))
  }
  if (plan.unmatched.length) throw new ReplayEditError(`[spindle/playground] these edits name nothing before the snapshot: ${plan.unmatched.join(', ')}`)
  const source = await runtime.sessions.getSession(run.sessionId)
  const step = Number(snapshot?.state.step ?? run.step)
  const purpose = request.purpose ?? 'replay'
  const session = await runtime.sessions.createSession({
    id: newSessionId(),
    title: `${source?.title ?? 'Session'} (${purpose === 'retry' ? 'retry' : `replay @ step ${step}`})`,
    metadata: {
      forkedFrom: {
        sessionId: run.sessionId,
        runId: run.id,
        version: snapshot?.version ?? null,
        lastSeq: entries.at(-1)?.seq ?? 0,
        step,
        purpose,
        edited: Boolean(request.edits?.messages?.length || request.edits?.toolResults?.length || request.runtimeState),
      },
      runtimeState: request.runtimeState ?? runtimeStateOf(source?.metadata),
    },
  })
  if (plan.history.length) await runtime.sessions.append(session.id, plan.history)
  const model = request.model ?? String((run.request.agent as { model?: string } | undefined)?.model ?? run.metadata.model ?? spindle.models[0]!.id)
  const lastUser = plan.input.findLast((message) => message.role === 'user')
  const started = await manager.start({ sessionId: session.id, text: lastUser ? messageText(lastUser) : 'replay', messages: plan.input, model })
  return { ...started, notRun: plan.notRun, droppedAnswer: plan.droppedAnswer }
}
