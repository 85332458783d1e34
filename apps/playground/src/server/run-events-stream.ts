// SSE for one run: catch up from the run's event log after `Last-Event-ID`, then live from the bus.
// Live events may arrive before they are flushed to the log; they are sent at once, and the SSE `id` is the
// highest seq below which nothing is missing, so a reconnect never skips an event. Gaps (a `lagged` bus,
// or events emitted before we subscribed) are filled from the log.
import type { AgentEvent, AgentRuntime, LaggedEvent } from '@spindle/core'
import type { Context } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { ResetNotice } from './run-fence.js'

const gapPollMs = 100
const heartbeatMs = 15_000

export function runEventsStream(c: Context, runtime: AgentRuntime, runId: string, after: number): Response {
  return streamSSE(c, async (stream) => {
    const abort = new AbortController()
    stream.onAbort(() => abort.abort())
    // Subscribe before reading the log so nothing falls between the two.
    const live = runtime.subscribe({ runId, capacity: 2048, signal: abort.signal })[Symbol.asyncIterator]()
    let watermark = Math.max(0, after)
    const ahead = new Set<number>()
    let lastWrite = Date.now()

    const send = async (event: AgentEvent) => {
      if (event.seq <= watermark || ahead.has(event.seq)) return
      ahead.add(event.seq)
      while (ahead.delete(watermark + 1)) watermark++
      lastWrite = Date.now()
      await stream.writeSSE({ id: String(watermark), event: 'agent', data: JSON.stringify(event) })
    }
    const catchUp = async () => {
      for (const event of await runtime.runs.listEvents(runId, { after: watermark })) await send(event)
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
      const event = next.value as AgentEvent | LaggedEvent | ResetNotice
      if (event.type === 'lagged') await catchUp()
      else if (event.type === 'playground.reset') {
        // The run was killed: what was never persisted will be emitted again, with the same seqs.
        watermark = Math.min(watermark, event.seq)
        ahead.clear()
        await stream.writeSSE({ id: String(watermark), event: 'reset', data: JSON.stringify({ seq: event.seq }) })
      } else await send(event)
    }
  })
}

function sleep(ms: number): { promise: Promise<undefined>; cancel: () => void } {
  let handle: NodeJS.Timeout | undefined
  const promise = new Promise<undefined>((resolve) => (handle = setTimeout(() => resolve(undefined), ms)))
  return { promise, cancel: () => clearTimeout(handle) }
}
