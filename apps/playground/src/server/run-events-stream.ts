// SSE for one run, by the kernel's rule for event numbers: a seq only grows and never changes meaning, and the
// numbers a crash discarded are declared by the `run.resumed` that follows them. So the SSE id is simply the seq
// of the event sent: a reconnect (`Last-Event-ID`) resumes after it, from the run's log, then from this process's
// events not logged yet (the kernel logs a step's events at its end), then live. A gap in the live events (a
// `lagged` bus, a subscriber that attached mid-step) is filled from the log and the buffer, in order.
import type { AgentEvent, AgentRuntime, LaggedEvent } from '@spindle/core'
import type { Context } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { LiveEventBuffer } from './live-event-buffer.js'

const gapPollMs = 100
const heartbeatMs = 15_000

export function runEventsStream(c: Context, runtime: AgentRuntime, buffer: LiveEventBuffer, runId: string, after: number): Response {
  return streamSSE(c, async (stream) => {
    const abort = new AbortController()
    stream.onAbort(() => abort.abort())
    // Subscribe before reading the log and the buffer so nothing falls between them.
    const live = runtime.subscribe({ runId, capacity: 2048, signal: abort.signal })[Symbol.asyncIterator]()
    /** The client has every event up to here (or knows it discarded). */
    let sent = Math.max(0, after)
    /** Events heard live above a gap, waiting for the log or the buffer to fill it. */
    const ahead = new Map<number, AgentEvent>()
    let lastWrite = Date.now()

    const write = async (event: AgentEvent) => {
      sent = event.seq
      lastWrite = Date.now()
      await stream.writeSSE({ id: String(event.seq), event: 'agent', data: JSON.stringify(event) })
    }
    /** Sends `event` if it is the next one; holds it if a gap comes first. */
    const offer = async (event: AgentEvent) => {
      if (event.seq <= sent) return
      if (!follows(event, sent)) {
        ahead.set(event.seq, event)
        return
      }
      await write(event)
      for (let next = nextAhead(); next !== undefined; next = nextAhead()) await write(next)
    }
    const nextAhead = (): AgentEvent | undefined => {
      for (const [seq, event] of ahead) {
        if (seq <= sent) ahead.delete(seq)
        else if (follows(event, sent)) {
          ahead.delete(seq)
          return event
        }
      }
      return undefined
    }
    const catchUp = async () => {
      // The buffer first: what leaves it during the log read is in the log by then.
      const unlogged = buffer.events(runId)
      for (const event of await runtime.runs.listEvents(runId, { after: sent })) await offer(event)
      for (const event of unlogged) await offer(event)
    }

    await catchUp()
    let pending: Promise<IteratorResult<AgentEvent | LaggedEvent>> | undefined
    while (!abort.signal.aborted) {
      pending ??= live.next()
      const timer = sleep(ahead.size ? gapPollMs : heartbeatMs)
      const next = await Promise.race([pending, timer.promise])
      timer.cancel()
      if (abort.signal.aborted) break
      if (!next) {
        if (ahead.size) await catchUp()
        if (Date.now() - lastWrite >= heartbeatMs) {
          lastWrite = Date.now()
          await stream.writeSSE({ event: 'ping', data: '{}' })
        }
        continue
      }
      pending = undefined
      if (next.done) break
      const event = next.value as AgentEvent | LaggedEvent | { type: `playground.${string}` }
      if (event.type === 'lagged') await catchUp()
      // The playground's own notices (a log write, a kill) change nothing here: numbers keep their meaning.
      else if (!event.type.startsWith('playground.')) await offer(event as AgentEvent)
    }
  })
}

/** Whether `event` comes right after `last`: the next seq, or the `run.resumed` declaring the numbers between discarded. */
function follows(event: AgentEvent, last: number): boolean {
  if (event.seq === last + 1) return true
  return event.type === 'run.resumed' && event.discarded !== undefined && event.discarded.from <= last + 1 && event.discarded.to >= event.seq - 1
}

function sleep(ms: number): { promise: Promise<undefined>; cancel: () => void } {
  let handle: NodeJS.Timeout | undefined
  const promise = new Promise<undefined>((resolve) => (handle = setTimeout(() => resolve(undefined), ms)))
  return { promise, cancel: () => clearTimeout(handle) }
}
