// A handoff: a successful handoff tool call gives the rest of the run to its target agent (same session, same history).
import type { AgentEventPayload } from '../spec/events.js'
import type { ToolCallOutcome } from '../tools/tool-step.js'
import { usePolicy, type RunContext } from './run-context.js'
import type { AgentSpec } from './run-request.js'
import { withState } from './run-state.js'

/**
 * Gives the rest of the run to the target of the first successful handoff call among `outcomes`, and emits its
 * `agent.handoff`. Returns true when the target brought its own policy (the model call options are then stale).
 */
export function applyHandoffs(
  run: RunContext,
  outcomes: Array<Pick<ToolCallOutcome, 'callId' | 'toolName' | 'isError'>>,
  emit: (payload: AgentEventPayload) => void,
): boolean {
  for (const outcome of outcomes) {
    const target = outcome.isError ? undefined : (run.init.scope.get(outcome.toolName)?.handoff as AgentSpec | undefined)
    if (!target || !run.deps.agents) continue
    const from = run.init.agentName
    const { model, scope, policy } = run.deps.agents.resolve(target)
    Object.assign(run.init, { agentName: target.name, instructions: target.instructions, model, scope })
    // The rest of the run is the target's: its policy (approvals, allow / deny, limits) applies from here.
    if (policy) usePolicy(run, policy)
    run.state = withState(run.state, { agent: target.name })
    emit({ type: 'agent.handoff', step: run.state.step, from, to: target.name, callId: outcome.callId })
    return policy !== undefined
  }
  return false
}
