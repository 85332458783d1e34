// The outcomes a ToolRuntime builds for calls that did not produce a result, and the violation that ends a run.
import type { PendingCall } from '../spec/run-state.js'
import type { ExecuteCallsInput, ToolCallOutcome, ToolCallPolicy } from './tool-step.js'

/** The message that ends the run when a call broke the policy and `policy.onViolation` is `stop`. */
export function violationOf(outcome: ToolCallOutcome, policy: ToolCallPolicy): string | undefined {
  return outcome.error?.code === 'policy_violation' && policy.onViolation === 'stop' ? outcome.error.message : undefined
}

/** A call that did not produce a result: its `tool.error` event, and the error the model gets back. */
export function failed(
  input: ExecuteCallsInput,
  call: PendingCall,
  started: number,
  code: string,
  message: string,
  executed = false,
  toolId?: string,
): ToolCallOutcome {
  const error = { code, message }
  input.emit({ type: 'tool.error', step: input.step, callId: call.callId, toolName: call.toolName, toolId, error, durationMs: performance.now() - started })
  return {
    callId: call.callId,
    toolName: call.toolName,
    result: { error: message },
    isError: true,
    error,
    durationMs: performance.now() - started,
    reused: false,
    executed,
  }
}
