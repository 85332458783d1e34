// runEvents: a run's events from its durable event log, then live — what a reconnecting client (`resume: true`) or a
// resumed run needs. Live events are de-duplicated by `seq`, which only grows within a run.
import { terminalEventTypes, type AgentEvent, type AgentRuntime } from '@spindle/core'

export interface RunEventsOptions {
  /** Only events with `seq` greater than this (default: every event from the start). */
  afterSeq?: number
  /** Stops reading (the live subscription ends). */
  signal?: AbortSignal
  /** Page size of the log reads (default 500). */
  pageSize?: number
  /**
   * Wait for new events even when the run is not running now (default false: a suspended or finished run's log is
   * all there is). `approveAndResume` sets it: the resume it starts writes the events.
   */
  follow?: boolean
}

/**
 * The run's events from the log, then live until its terminal event; a lag of the live channel is caught up from the log.
 *
 * @example
 * return toUIMessageStreamResponse(runEvents(runtime, runId)) // GET /api/chat/:id/stream
 */
export async function* runEvents(runtime: AgentRuntime, runId: string, options: RunEventsOptions = {}): AsyncGenerator<AgentEvent> {
  const controller = new AbortController()
  const onAbort = () => controller.abort()
  options.signal?.addEventListener('abort', onAbort, { once: true })
  // Subscribe first, so that nothing emitted while the log is read is missed.
  const live = runtime.subscribe({ runId, signal: controller.signal })[Symbol.asyncIterator]()
  let pending = live.next()
  pending.catch(() => {})
  let last = options.afterSeq ?? 0
  const pageSize = options.pageSize ?? 500
  try {
    const fromLog = async function* (): AsyncGenerator<AgentEvent> {
      for (;;) {
        const page = await runtime.runs.listEvents(runId, { after: last, limit: pageSize })
        for (const event of page) {
          if (event.seq <= last) continue
          last = event.seq
          yield event
        }
        if (page.length < pageSize) return
      }
    }
    for await (const event of fromLog()) {
      yield event
      if (terminalEventTypes.has(event.type)) return
    }
    const record = await runtime.runs.getRun(runId)
    if (!options.follow && record && isSettled(record.status)) {
      for await (const event of fromLog()) yield event
      return
    }
    for (;;) {
      const next = await pending
      if (next.done) return
      pending = live.next()
      pending.catch(() => {})
      const event = next.value
      if (event.type === 'lagged') {
        for await (const caught of fromLog()) {
          yield caught
          if (terminalEventTypes.has(caught.type)) return
        }
        continue
      }
      if (event.seq <= last) continue
      last = event.seq
      yield event
      if (terminalEventTypes.has(event.type)) return
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort)
    controller.abort()
    await live.return?.()
  }
}

function isSettled(status: string): boolean {
  return status !== 'running' && status !== 'queued' && status !== 'pending'
}

/** The seq of the run's last logged event (0 when none). */
export async function lastEventSeq(runtime: AgentRuntime, runId: string, pageSize = 500): Promise<number> {
  let last = 0
  for (;;) {
    const page = await runtime.runs.listEvents(runId, { after: last, limit: pageSize })
    if (page.length > 0) last = page[page.length - 1]!.seq
    if (page.length < pageSize) return last
  }
}
