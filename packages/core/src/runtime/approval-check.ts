// Which of a step's tool calls need a human decision: the tool's flag, the policy's names and effect classes, or
// predicates (the policy's and the tool's). A call that needs one is marked `required` with a hash of its arguments.
import { listedForApproval, type RuntimePolicy } from '../policy/runtime-policy.js'
import type { PendingCall } from '../spec/run-state.js'
import { hashArgs } from './hash-args.js'
import type { RunContext } from './run-context.js'
import type { MaybePromise } from '../util/fast-path.js'

/** Marks the calls that need approval; synchronous unless an approval predicate is involved (most runs have none). */
export function markApprovals(run: RunContext, calls: PendingCall[]): MaybePromise<PendingCall[]> {
  if (!calls.length) return calls
  const { requireApproval } = run.deps.policy
  const { scope } = run.init
  // Loops rather than `some()` with arrow functions: this runs every step, and each arrow was an allocation.
  if (typeof requireApproval !== 'function' && !anyApprovalHook(run, calls)) {
    for (const call of calls) {
      const tool = scope.get(call.toolName)
      if (!tool || call.argsError) continue
      if (tool.needsApproval === true || listedForApproval(requireApproval, call.toolName, tool)) markRequired(call)
    }
    return calls
  }
  return markApprovalsAsync(run, calls, requireApproval)
}

function markRequired(call: PendingCall): void {
  call.approval = 'required'
  call.argsHash = hashArgs(call.args)
}

/** Whether a called tool decides its approval with a function (then the calls are checked asynchronously). */
function anyApprovalHook(run: RunContext, calls: PendingCall[]): boolean {
  for (const call of calls) if (typeof run.init.scope.get(call.toolName)?.needsApproval === 'function') return true
  return false
}

async function markApprovalsAsync(run: RunContext, calls: PendingCall[], requireApproval: RuntimePolicy['requireApproval']): Promise<PendingCall[]> {
  const { runId, sessionId } = run
  const step = run.state.step + 1
  for (const call of calls) {
    const tool = run.init.scope.get(call.toolName)
    if (!tool || call.argsError) continue
    let needed = false
    try {
      if (typeof requireApproval === 'function') needed = await requireApproval({ toolName: call.toolName, tool, args: call.args })
      else needed = listedForApproval(requireApproval, call.toolName, tool)
      if (!needed && tool.needsApproval !== undefined) {
        needed =
          typeof tool.needsApproval === 'function'
            ? await tool.needsApproval(call.args as never, {
                runId,
                sessionId,
                step,
                callId: call.callId,
                toolName: call.toolName,
                idempotencyKey: `${runId}:${step}:${call.callId}`,
                signal: run.init.signal,
                runtime: run.init.runtime,
                artifacts: run.deps.stores.artifacts,
              })
            : tool.needsApproval
      }
    } catch {
      // An approval check that fails closes safe: a human decides (the assistant message asking for the call is
      // already queued; throwing here would leave its call without a result).
      needed = true
    }
    if (needed) markRequired(call)
  }
  return calls
}
