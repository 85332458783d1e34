// The setup a start and a resume share, written once: the run's abort wiring (the caller's signal, the run
// timeout), the session's lease held while the run executes, the run registered as active with its lease renewed,
// and the execution built and driven.
import type { ContextWindow } from '../context/context-window.js'
import { AbortedError, SessionBusyError, TimeoutError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import { neverLost } from '../gate/in-process-session-gate.js'
import type { RuntimePolicy } from '../policy/runtime-policy.js'
import type { SessionLease } from '../spec/session-gate.js'
import { runExecutionDeps, runExecutionInit, type RunExecutionStart } from './run-context.js'
import { RunExecution } from './run-execution.js'
import type { RunOpening } from './run-opening.js'
import { startRunTimer, stopRunTimer } from './run-timers.js'
import type { RunOutput } from './run-request.js'
import type { RuntimeServices } from './runtime-services.js'

/** The session a run holds while it executes. */
export interface SessionHold {
  readonly lease: SessionLease
  /** How long the run waited for the session's gate. */
  readonly gateWaitMs: number
  /** Lets the session go before the run would (a start that found another run to share). */
  release(): Promise<void>
}

export interface HoldRequest {
  runId: string
  sessionId: string
  policy: RuntimePolicy
  /** The run's own controller: aborted by `signal`, by the run timeout, and by a cancel. */
  controller: AbortController
  signal: AbortSignal | undefined
  /** Whether an abort also stops the wait for the gate (a start's does). */
  abortableWait: boolean
}

/** Holds the run's session for `body`: its signals linked, its timeout set, its lease taken and, at the end, released. */
export async function holdSession<T>(services: RuntimeServices, request: HoldRequest, body: (hold: SessionHold) => Promise<T>): Promise<T> {
  const { controller, policy } = request
  const unlink = linkSignals(controller, [request.signal])
  const timeout = startRunTimer(policy.runTimeoutMs, () =>
    controller.abort(new TimeoutError(`[spindle/core] run exceeded policy.runTimeoutMs (${policy.runTimeoutMs} ms)`)),
  )
  let lease: SessionLease | undefined
  const gateStart = performance.now()
  try {
    lease = await services.gate.acquire(request.sessionId, {
      owner: request.runId,
      onContention: policy.onContention,
      maxQueue: policy.maxQueue,
      queueTimeoutMs: policy.queueTimeoutMs,
      // Always the same fields (no spread of an optional one): the options' hidden class is the literal's, which a GC keeps.
      signal: request.abortableWait ? controller.signal : undefined,
    })
    const held = lease
    const gateWaitMs = performance.now() - gateStart
    return await body({
      lease: held,
      gateWaitMs,
      release: async () => {
        lease = undefined
        await held.release()
      },
    })
  } finally {
    stopRunTimer(timeout)
    unlink()
    await lease?.release()
  }
}

/** Builds the run's execution and drives it, the run registered as active and its lease renewed while it runs. */
export async function executeHeld(
  services: RuntimeServices,
  hold: SessionHold,
  controller: AbortController,
  policy: RuntimePolicy,
  start: RunExecutionStart,
  prepare?: (execution: RunExecution) => void,
  opening?: RunOpening,
): Promise<RunOutput> {
  const execution = new RunExecution(
    runExecutionDeps({
      stores: services.stores(),
      bus: services.bus,
      policy,
      tools: services.tools,
      context: services.context,
      compaction: services.compaction,
      ownerId: services.ownerId,
      agentRuntime: services.host,
      agents: services.agents,
      observers: services.extensions.observers,
      redactor: services.extensions.redactor,
      prices: services.extensions.prices,
    }),
    runExecutionInit(start),
  )
  prepare?.(execution)
  const runId = start.state.runId
  const { lease } = hold
  // A lease that cannot be lost (the in-process gate's) is not listened to.
  const onLeaseLost =
    lease.signal === neverLost
      ? undefined
      : () => controller.abort(new SpindleError('lease_lost', `[spindle/core] the session lease of run "${runId}" was lost: another holder continues the run`))
  if (onLeaseLost) lease.signal.addEventListener('abort', onLeaseLost, { once: true })
  const beat = Math.max(1_000, Math.floor(policy.leaseMs / 3))
  const heartbeat = startRunTimer(
    beat,
    () => void services.runs.updateRun(runId, { lease: { owner: services.ownerId, expiresAt: Date.now() + policy.leaseMs } }).catch(() => {}),
    beat,
  )
  const promise = execution.execute(opening ?? { events: [] })
  services.active.set(runId, { controller, promise })
  try {
    const output = await promise
    if (output.finishReason !== 'awaiting_approval') services.runAgents.delete(runId)
    return output
  } finally {
    stopRunTimer(heartbeat)
    if (onLeaseLost) lease.signal.removeEventListener('abort', onLeaseLost)
    services.active.delete(runId)
  }
}

/**
 * Refuses to start or continue a run after another one left unfinished: the session's last entry belongs to a run
 * still `running` (its process died; its lease may have expired before its job's), `interrupted`, or `suspended`
 * (awaiting approval). Going on anyway would interleave the two runs' messages and leave the other run's
 * unanswered tool calls before this run's messages (which the providers reject). One read of a run record, when
 * the session's last entry belongs to another run.
 */
export async function refuseOverUnfinished(services: RuntimeServices, window: ContextWindow, sessionId: string, runId: string): Promise<void> {
  const owner = window.entries[window.entries.length - 1]?.runId
  if (owner === undefined || owner === runId) return
  const previous = await services.runs.getRun(owner)
  if (previous?.status === 'suspended') {
    throw new SessionBusyError(
      `[spindle/core] session "${sessionId}" has run "${owner}" awaiting approval of its tool calls; approve() them and resume("${owner}"), or cancel("${owner}"), first. A new run now would leave those calls unanswered before its own messages.`,
      { details: { sessionId, runId: owner, status: previous.status } },
    )
  }
  if (previous?.status !== 'running' && previous?.status !== 'interrupted') return
  throw new SessionBusyError(
    `[spindle/core] session "${sessionId}" has an unfinished run "${owner}" (${previous.status}: stopped mid-run by a crash or a shutdown); resume("${owner}") or cancel("${owner}") it first. A new run now would interleave with it.`,
    { details: { sessionId, runId: owner, status: previous.status } },
  )
}

function linkSignals(controller: AbortController, signals: Array<AbortSignal | undefined>): () => void {
  const cleanups: Array<() => void> = []
  for (const signal of signals) {
    if (!signal) continue
    if (signal.aborted) {
      controller.abort(signal.reason)
      continue
    }
    const onAbort = () => controller.abort(signal.reason instanceof Error ? signal.reason : new AbortedError())
    signal.addEventListener('abort', onAbort, { once: true })
    cleanups.push(() => signal.removeEventListener('abort', onAbort))
  }
  return () => {
    for (const cleanup of cleanups) cleanup()
  }
}
