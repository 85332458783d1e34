// resume(), cancel() of a suspended run, a worker's job and recover(): a run continued from its last snapshot and
// the entries it wrote after it, its session held, its record claimed first.
import { AbortedError, ConfigurationError, NotFoundError, SessionBusyError } from '../errors/errors.js'
import type { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { ModelMessage } from '../spec/messages.js'
import type { RunPatch, RunRecord } from '../spec/run-store.js'
import { runStatusOf } from '../spec/run-status.js'
import { findHandoffTarget } from './handoff-target.js'
import { executeHeld, holdSession, refuseOverUnfinished } from './hold-session.js'
import { outputFromStore } from './output-from-store.js'
import type { RunOpening } from './run-opening.js'
import { leaseIsFree } from './owner-identity.js'
import { continueNumbering } from './resume-numbering.js'
import type { AgentSpec, ResumeOptions, RunOutput } from './run-request.js'
import { answerText, initialRunState, type RunState } from './run-state.js'
import type { RuntimeServices } from './runtime-services.js'
import { withRuntimeStore } from './runtime-store-scope.js'

/** `known` is the run's record when the caller has just read it (a worker's job). */
export async function resumeRun(
  services: RuntimeServices,
  runId: string,
  options: ResumeOptions,
  runtime: RuntimeStore | undefined,
  cancelOnly: boolean,
  known?: RunRecord,
): Promise<RunOutput> {
  await services.extensions.ready()
  const active = services.active.get(runId)
  if (active) return active.promise
  const run = known ?? (await services.runs.getRun(runId))
  if (!run) throw new NotFoundError(`[spindle/core] no run "${runId}" to resume`)
  if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') return existingOutput(services, run)
  if (run.status === 'running' && run.lease && run.lease.owner !== services.ownerId && !leaseIsFree(run.lease)) {
    throw new SessionBusyError(
      `[spindle/core] run "${runId}" is held by ${run.lease.owner} until ${new Date(run.lease.expiresAt).toISOString()}; resume it after its lease expires`,
    )
  }
  let agent = options.agent ?? services.runAgents.get(runId) ?? (cancelOnly ? services.agents.toCancel(run) : services.agents.fromRecord(run))
  let { model, scope, policy } = services.agents.resolve(agent)
  const controller = new AbortController()
  if (cancelOnly) controller.abort(new AbortedError(`[spindle/core] run "${runId}" was cancelled`))
  return holdSession(services, { runId, sessionId: run.sessionId, policy, controller, signal: options.signal, abortableWait: false }, async (hold) => {
    const snapshot = await services.snapshots.latest(runId)
    const window = await services.windows.get(run.sessionId)
    // Not after another run a crash left unfinished (the queue retries the job later): a queued run starts here, and
    // a run whose process died before its input reached the session may find another run appended after it since.
    if (!cancelOnly) await refuseOverUnfinished(services, window, run.sessionId, runId)
    const state: RunState = snapshot ? (structuredClone(snapshot.state) as unknown as RunState) : initialRunState(runId, run.sessionId, 1)
    if (!snapshot) state.lastSeq = 0
    // A handoff moved the run to another agent: continue with it.
    if (state.agent && state.agent !== agent.name) {
      const target = findHandoffTarget(agent, state.agent)
      if (!target)
        throw new ConfigurationError(
          `[spindle/core] run "${runId}" was handed off to agent "${state.agent}", which is not reachable from "${agent.name}" through handoff tools; pass it: resume(runId, { agent })`,
        )
      agent = target
      ;({ model, scope, policy } = services.agents.resolve(agent))
    }
    // Events are flushed before each snapshot, so only the snapshot's own `snapshot.saved` may be missing (a crash
    // right after the save): its seq is then taken again and the log stays gap-free.
    const logged = await services.runs.listEvents(runId, { after: Math.max(0, state.eventSeq - 1) })
    // Above every number the crashed attempt may have delivered live; the ones its log lacks are declared discarded.
    const discarded = continueNumbering(state, logged)
    const snapshotPhase = state.phase
    const end = logged[logged.length - 1]
    if (end && (end.type === 'run.failed' || (end.type === 'run.finished' && end.finishReason !== 'awaiting_approval'))) {
      // The process died after logging the run's end, before recording it on the run: record it now, claimed like a
      // resume (another process recording or resuming it at the same moment wins, and this one writes nothing).
      const { finishReason } = end
      const patch = { status: runStatusOf(finishReason), finishReason, step: state.step, usage: state.usage, finishedAt: end.timestamp, lease: undefined }
      const ended = await claimRun(services, run, end.type === 'run.failed' ? { ...patch, error: end.error } : patch)
      return await outputFromStore(ended, services.stores())
    }
    // The claim, before anything is written for the run: a compare-and-set against the record read above, so that
    // of two processes resuming it at once (both past the lease check, each with a gate of its own) one continues.
    await claimRun(services, run, {
      status: 'running',
      lease: { owner: services.ownerId, expiresAt: Date.now() + policy.leaseMs },
      ...(run.status === 'queued' ? { startedAt: Date.now() } : {}),
    })
    services.onClaimed.get(runId)?.()
    services.runAgents.set(runId, agent)
    const previous = await services.sessions.listEntries(run.sessionId, { after: state.firstSeq - 1, before: state.lastSeq + 1 })
    const messages = previous.filter((entry) => entry.runId === runId && entry.kind === 'message').map((entry) => (entry as { message: ModelMessage }).message)
    // The snapshot holds the answer so far redacted: the run continues from the text the model wrote.
    if (state.text) state.text = answerText(messages) || state.text
    const modelId = `${model.provider}:${model.modelId}`
    // A queued run starts here; a run killed before anything reached its log has its start logged now.
    const opening: RunOpening = { events: [] }
    if (state.eventSeq === 0) {
      const queueWaitMs = run.status === 'queued' ? Math.max(0, Date.now() - run.createdAt) : undefined
      opening.events.push({ type: 'run.started', agent: agent.name, modelId, input: run.request.input ?? null, gateWaitMs: hold.gateWaitMs, queueWaitMs })
    }
    if (run.status !== 'queued')
      opening.events.push({
        type: 'run.resumed',
        fromStep: state.step,
        agent: agent.name,
        modelId,
        gateWaitMs: hold.gateWaitMs,
        ...(discarded ? { discarded } : {}),
      })
    const entries = window.entries.filter((entry) => entry.seq > state.lastSeq)
    if (!snapshot && !entries.some((entry) => entry.runId === runId)) {
      // The process died between creating the run and appending its input: append it now (not to cancel it: the
      // session never saw this run, and another one may be unfinished there).
      if (!cancelOnly) opening.input = (run.request.input ?? []) as unknown as ModelMessage[]
    } else {
      // The step the crash interrupted was never logged (a snapshot in the tools phase logged its calls).
      opening.replay = { entries, announce: snapshotPhase !== 'tools' }
    }
    const start = { state, agent, model, scope, window, lease: hold.lease, runtime, channel: undefined, signal: controller.signal, messages }
    return executeHeld(services, hold, controller, policy, start, (execution) => execution.events.seqs.restore(snapshot), opening)
  })
}

/**
 * Moves a run to `patch` if its record still has the status and lease of `run` (read before): with the store's
 * `claimRun`, atomically; a store without it gets a plain `updateRun` (no protection against another process).
 * A lost claim throws `SessionBusyError` (details `{ runId, claimed: true }`), having written nothing.
 */
export async function claimRun(services: RuntimeServices, run: RunRecord, patch: RunPatch): Promise<RunRecord> {
  const { runs } = services
  const { claimRun: claim } = runs
  if (claim === undefined) return await runs.updateRun(run.id, patch)
  const claimed = await claim.call(runs, run.id, { status: run.status, lease: run.lease }, patch)
  if (claimed !== undefined) return claimed
  throw new SessionBusyError(
    `[spindle/core] another process resumed run "${run.id}" meanwhile (or interrupted it): its record is no longer ${run.status}${run.lease ? ` under ${run.lease.owner}'s lease` : ' without a lease'}, as read before the claim. Nothing was written here; read it again with getRun("${run.id}"), or resume it later to get its output.`,
    { details: { runId: run.id, sessionId: run.sessionId, claimed: true } },
  )
}

/** The output of a run that already exists (finished here or elsewhere, or still running). */
export async function existingOutput(services: RuntimeServices, run: RunRecord, agent?: AgentSpec): Promise<RunOutput> {
  const active = services.active.get(run.id)
  if (active) return active.promise
  let current: RunRecord | undefined = run
  let delay = 25
  while (current && (current.status === 'running' || current.status === 'queued')) {
    // Left running by a process that died (its lease expired): nobody will finish it unless this call does.
    if (current.status === 'running' && leaseIsFree(current.lease)) {
      const id = current.id
      return withRuntimeStore(services.extensions, undefined, (runtime) => resumeRun(services, id, agent ? { agent } : {}, runtime, false))
    }
    await new Promise((resolve) => setTimeout(resolve, delay))
    delay = Math.min(1_000, delay * 2)
    const local = services.active.get(run.id)
    if (local) return local.promise
    current = await services.runs.getRun(run.id)
  }
  if (!current) throw new NotFoundError(`[spindle/core] run "${run.id}" disappeared`)
  return outputFromStore(current, services.stores())
}
