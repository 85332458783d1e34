// runEvents: a run's events from its durable event log, then live — what a reconnecting client (`resume: true`) or a
// resumed run needs. Live events are de-duplicated by `seq`, which only grows within a run.
import { terminalEventTypes, type AgentEvent, type AgentRuntime } from '@spindle/core'

/**
 * Options of `runEvents(runtime, runId, options)`: where to start in the run's event log, when to stop, and whether to
 * keep waiting for the events of a run that is not running now (a resume about to start).
 */
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
  /**
   * How often the log is read again while live events wait for earlier ones (default 100 ms): a run logs a step's
   * events when the step ends, so a client that connects mid-step receives the step's next events live before the
   * log has the first ones. Those are held, never skipped, and sent in order once the log has filled the gap.
   */
  gapPollMs?: number
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
  let pending = nextOf(live)
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
    // In the log, a suspension (awaiting approval) ends the run only when nothing follows it: a resumed run goes on.
    for await (const event of fromLog()) {
      yield event
      if (isFinalEnd(event)) return
    }
    const record = await runtime.runs.getRun(runId)
    if (!options.follow && record && isSettled(record.status)) {
      for await (const event of fromLog()) yield event
      return
    }
    // Live events past a gap (not logged yet when the log was read) wait here until the log has the events before them.
    const held: AgentEvent[] = []
    const gapPollMs = options.gapPollMs ?? 100
    // Reads the log past `last`, then sends the held events that follow on; true once the run's terminal event was sent.
    const fill = async function* (): AsyncGenerator<AgentEvent, boolean> {
      for await (const caught of fromLog()) {
        yield caught
        if (terminalEventTypes.has(caught.type)) return true
      }
      while (held.length > 0 && (held[0]!.seq <= last || follows(held[0]!, last))) {
        const event = held.shift()!
        if (event.seq <= last) continue
        last = event.seq
        yield event
        if (terminalEventTypes.has(event.type)) return true
      }
      return false
    }
    for (;;) {
      const next = held.length === 0 ? await pending : await Promise.race([pending, delay(gapPollMs)])
      if (next === undefined) {
        if (yield* fill()) return
        continue
      }
      if (next.done) return
      pending = nextOf(live)
      const event = next.value
      if (event.type === 'lagged') {
        if (yield* fill()) return
        continue
      }
      if (event.seq <= last) continue
      if (held.length > 0 || !follows(event, last)) {
        held.push(event)
        continue
      }
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

function nextOf<T>(iterator: AsyncIterator<T>): Promise<IteratorResult<T>> {
  const next = iterator.next()
  next.catch(() => {})
  return next
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(resolve, ms, undefined))
}

/** Whether `event` comes right after `last`: the next seq, or a `run.resumed` past the numbers it declares discarded. */
function follows(event: AgentEvent, last: number): boolean {
  if (event.seq === last + 1) return true
  return event.type === 'run.resumed' && event.discarded !== undefined && event.discarded.from <= last + 1 && event.seq === event.discarded.to + 1
}

/** A terminal event after which the run cannot go on: any but a suspension awaiting approval (a resume continues it). */
function isFinalEnd(event: AgentEvent): boolean {
  return terminalEventTypes.has(event.type) && !(event.type === 'run.finished' && event.finishReason === 'awaiting_approval')
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
