// SSE for one run: catch up from the run's event log and this process's unlogged events after `Last-Event-ID`, then
// live from the bus. Live events run ahead of the log (it is written per step); they are sent at once, and the SSE
// `id` is the highest seq below which the client has every event *and the log holds them*: a reconnect, to this
// process or to the one that replaced it after a crash, resumes from a point that is still true, and the client
// drops what it holds above it (events of a dead process are never logged: a resume emits others with their seqs).
// Gaps (a `lagged` bus) are filled from the log and the buffer.
import type { AgentEvent, AgentRuntime, LaggedEvent } from '@spindle/core'
import type { Context } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { DurableNotice, LiveEventBuffer } from './live-event-buffer.js'
import type { ResetNotice } from './run-fence.js'

const gapPollMs = 100
const heartbeatMs = 15_000

export function runEventsStream(c: Context, runtime: AgentRuntime, buffer: LiveEventBuffer, runId: string, after: number): Response {
  return streamSSE(c, async (stream) => {
    const abort = new AbortController()
    stream.onAbort(() => abort.abort())
    // Subscribe before reading the log and the buffer so nothing falls between them.
    const live = runtime.subscribe({ runId, capacity: 2048, signal: abort.signal })[Symbol.asyncIterator]()
    /** The client has every event up to here. */
    let watermark = Math.max(0, after)
    /** The run's log holds every event up to here. */
    let logged = 0
    /** The last SSE id sent (what the client sends back on reconnect). */
    let sentId = watermark
    const ahead = new Set<number>()
    let lastWrite = Date.now()
    const idNow = () => Math.min(watermark, logged)

    const write = async (event: string, data: unknown) => {
      sentId = idNow()
      lastWrite = Date.now()
      await stream.writeSSE({ id: String(sentId), event, data: JSON.stringify(data) })
    }
    const send = async (event: AgentEvent) => {
      if (event.seq <= watermark || ahead.has(event.seq)) return
      ahead.add(event.seq)
      while (ahead.delete(watermark + 1)) watermark++
      await write('agent', event)
    }
    const catchUp = async () => {
      // The buffer first: what leaves it during the log read is in the log by then.
      const unlogged = buffer.events(runId)
      const events = await runtime.runs.listEvents(runId, { after: watermark })
      logged = Math.max(logged, events.at(-1)?.seq ?? 0)
      for (const event of events) await send(event)
      for (const event of unlogged) await send(event)
    }

    if (watermark > 0) {
      const [atId] = await runtime.runs.listEvents(runId, { after: watermark - 1, limit: 1 })
      if (atId?.seq === watermark) logged = watermark
      else {
        // The log does not reach the client's id (not one this server sent): it starts again from the log's end.
        watermark = logged = (await runtime.runs.listEvents(runId)).at(-1)?.seq ?? 0
        await write('reset', { seq: watermark })
      }
    }
    await catchUp()
    let pending: Promise<IteratorResult<AgentEvent | LaggedEvent>> | undefined
    while (!abort.signal.aborted) {
      pending ??= live.next()
      const wait = ahead.size ? gapPollMs : heartbeatMs
      const timer = sleep(wait)
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
      const event = next.value as AgentEvent | LaggedEvent | ResetNotice | DurableNotice
      if (event.type === 'lagged') await catchUp()
      else if (event.type === 'playground.durable') {
        // The log caught up: a new id tells the client (and its next reconnect) that its events up to it are kept.
        logged = Math.max(logged, event.seq)
        if (idNow() > sentId) await write('durable', { through: idNow() })
      } else if (event.type === 'playground.reset') {
        // The run was killed: what was never logged will be emitted again, with the same seqs.
        watermark = Math.min(watermark, event.seq)
        logged = Math.min(logged, event.seq)
        ahead.clear()
        await write('reset', { seq: event.seq })
      } else await send(event)
    }
  })
}

function sleep(ms: number): { promise: Promise<undefined>; cancel: () => void } {
  let handle: NodeJS.Timeout | undefined
  const promise = new Promise<undefined>((resolve) => (handle = setTimeout(() => resolve(undefined), ms)))
  return { promise, cancel: () => clearTimeout(handle) }
}
