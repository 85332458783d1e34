// approve(): human decisions on calls awaiting approval, applied one at a time per run to its latest snapshot.
import { ConfigurationError, DuplicateError, NotFoundError } from '../errors/errors.js'
import type { RunRecord } from '../spec/run-store.js'
import type { ApprovalDecision } from './run-request.js'
import type { RunState } from './run-state.js'
import type { RuntimeServices } from './runtime-services.js'

/** Human decisions on calls awaiting approval, queued per run. */
export class ApprovalQueue {
  readonly #services: RuntimeServices
  /** Per run, the tail of its queue of approval decisions. */
  readonly #decisions = new Map<string, Promise<void>>()

  constructor(services: RuntimeServices) {
    this.#services = services
  }

  /** Queues the decision behind the run's earlier ones (see `AgentRuntime.approve`). */
  approve(runId: string, callId: string, decision: ApprovalDecision | boolean): Promise<void> {
    // The tail of this run's queue never rejects: one failed decision does not fail the ones behind it.
    const queued = this.#decisions.get(runId)
    const decided = queued ? queued.then(() => this.#decide(runId, callId, decision)) : this.#decide(runId, callId, decision)
    const tail = decided.then(noop, noop)
    this.#decisions.set(runId, tail)
    void tail.then(() => {
      if (this.#decisions.get(runId) === tail) this.#decisions.delete(runId)
    })
    return decided
  }

  async #decide(runId: string, callId: string, decision: ApprovalDecision | boolean): Promise<void> {
    const services = this.#services
    const { approved, reason } = typeof decision === 'boolean' ? { approved: decision, reason: undefined } : decision
    await services.extensions.ready()
    // Checked before waiting for the gate too: a run that is not suspended fails at once.
    const { sessionId } = await this.#suspendedRun(runId)
    const lease = await services.gate.acquire(sessionId, {
      owner: `approve:${runId}`,
      // A decision is a short write, queued even when runs on contention are rejected.
      onContention: 'queue',
      maxQueue: services.policy.maxQueue,
      queueTimeoutMs: services.policy.queueTimeoutMs,
    })
    try {
      // Read again under the gate: a decision, resume or cancel made meanwhile, here or elsewhere, is seen.
      await this.#suspendedRun(runId)
      const snapshot = await services.snapshots.latest(runId)
      const state = snapshot?.state as unknown as RunState | undefined
      const call = state?.pending.find((pending) => pending.callId === callId)
      if (!snapshot || !state || !call) {
        const waiting = state?.pending.filter((pending) => pending.approval === 'required').map((pending) => pending.callId) ?? []
        throw new NotFoundError(`[spindle/core] run "${runId}" has no pending call "${callId}". Calls awaiting approval: ${waiting.join(', ') || '(none)'}`)
      }
      const decided = approved ? 'approved' : 'denied'
      if (call.approval === undefined) {
        throw new ConfigurationError(
          `[spindle/core] call "${callId}" (${call.toolName}) of run "${runId}" does not need approval; only calls awaiting a decision can be approved or denied`,
        )
      }
      // The same decision again (a double click, a retried request) changes nothing; another one cannot replace it.
      if (call.approval === decided) return
      if (call.approval !== 'required') {
        throw new DuplicateError(
          `[spindle/core] call "${callId}" (${call.toolName}) of run "${runId}" was already ${call.approval}; a decision cannot be changed`,
        )
      }
      call.approval = decided
      if (reason) call.reason = reason
      await services.snapshots.save({ ...snapshot, state: state as never, createdAt: Date.now() })
    } finally {
      await lease.release()
    }
  }

  async #suspendedRun(runId: string): Promise<RunRecord> {
    const run = await this.#services.runs.getRun(runId)
    if (!run) throw new NotFoundError(`[spindle/core] no run "${runId}"`)
    if (run.status !== 'suspended') throw new ConfigurationError(`[spindle/core] run "${runId}" is ${run.status}, not awaiting approval`)
    return run
  }
}

function noop(): void {}
