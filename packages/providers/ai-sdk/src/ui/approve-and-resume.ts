// approveAndResume: approvals answered in the UI (from fromUIMessages) recorded with runtime.approve, then the suspended
// run resumed, its new events streamed (for toUIMessageStream) from the durable log and the live channel.
import { ConfigurationError, type AgentEvent, type AgentRuntime, type ResumeOptions } from '@spindle/core'
import type { UIApproval } from './from-ui-messages.js'
import { lastEventSeq, runEvents } from './run-events.js'

/**
 * Records the decisions and resumes their run; yields the resumed run's events until its terminal event.
 *
 * @example
 * const { input, approvals } = fromUIMessages(body)
 * if (approvals.length) return toUIMessageStreamResponse(approveAndResume(runtime, approvals))
 */
export async function* approveAndResume(runtime: AgentRuntime, approvals: readonly UIApproval[], options: ResumeOptions = {}): AsyncGenerator<AgentEvent> {
  const runIds = new Set(approvals.map((approval) => approval.runId))
  if (runIds.size !== 1) throw new ConfigurationError(`[spindle/ai-sdk] approveAndResume: the approvals must belong to one run (got ${runIds.size})`)
  const [runId] = runIds as unknown as [string]
  const afterSeq = await lastEventSeq(runtime, runId)
  for (const approval of approvals) {
    await runtime.approve(runId, approval.callId, { approved: approval.approved, ...(approval.reason !== undefined && { reason: approval.reason }) })
  }
  const controller = new AbortController()
  const events = runEvents(runtime, runId, { afterSeq, follow: true, signal: controller.signal })
  // The first next() subscribes before the resume starts writing events.
  const first = events.next()
  const resumed = runtime.resume(runId, options)
  let failure: unknown
  resumed.catch((error: unknown) => {
    failure = error
    controller.abort()
  })
  try {
    let next = await first
    while (!next.done) {
      yield next.value
      next = await events.next()
    }
    if (failure !== undefined) throw failure
  } finally {
    await events.return(undefined)
  }
}
