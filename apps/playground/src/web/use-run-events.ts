// Follows one run over SSE: events kept by seq (de-duplicated, ordered). The server's SSE id says up to where its
// log holds what this page has: on every (re)connection the events above it are dropped (the server sends them
// again, or, if it died and another took over, its replacements), and a kill's `reset` drops those above its seq.
import { useEffect, useState } from 'react'
import type { AgentEvent } from './types'

export interface RunEventsState {
  events: AgentEvent[]
  connected: boolean
}

export function useRunEvents(runId: string | undefined): RunEventsState {
  const [state, setState] = useState<RunEventsState>({ events: [], connected: false })
  useEffect(() => {
    setState({ events: [], connected: false })
    if (!runId) return
    const bySeq = new Map<number, AgentEvent>()
    // The last SSE id received: the one the browser sends back (Last-Event-ID) when it reconnects.
    let logged = 0
    let frame = 0
    const publish = () => {
      frame = 0
      setState({ events: [...bySeq.values()].sort((a, b) => a.seq - b.seq), connected: true })
    }
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(publish)
    }
    const dropAbove = (seq: number) => {
      for (const key of bySeq.keys()) if (key > seq) bySeq.delete(key)
      schedule()
    }
    const remember = (message: MessageEvent) => {
      const id = Number(message.lastEventId)
      if (message.lastEventId !== '' && Number.isInteger(id)) logged = id
    }
    const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`)
    source.addEventListener('open', () => {
      dropAbove(logged)
      setState((previous) => ({ ...previous, connected: true }))
    })
    source.addEventListener('error', () => setState((previous) => ({ ...previous, connected: false })))
    source.addEventListener('agent', (message) => {
      remember(message as MessageEvent)
      const event = JSON.parse((message as MessageEvent).data) as AgentEvent
      bySeq.set(event.seq, event)
      schedule()
    })
    source.addEventListener('durable', (message) => remember(message as MessageEvent))
    source.addEventListener('reset', (message) => {
      remember(message as MessageEvent)
      dropAbove((JSON.parse((message as MessageEvent).data) as { seq: number }).seq)
    })
    return () => {
      source.close()
      if (frame) cancelAnimationFrame(frame)
    }
  }, [runId])
  return state
}
