// Follows one run over SSE: events kept by seq (de-duplicated, ordered), reset after a kill.
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
    let frame = 0
    const publish = () => {
      frame = 0
      setState({ events: [...bySeq.values()].sort((a, b) => a.seq - b.seq), connected: true })
    }
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(publish)
    }
    const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`)
    source.addEventListener('open', () => setState((previous) => ({ ...previous, connected: true })))
    source.addEventListener('error', () => setState((previous) => ({ ...previous, connected: false })))
    source.addEventListener('agent', (message) => {
      const event = JSON.parse((message as MessageEvent).data) as AgentEvent
      bySeq.set(event.seq, event)
      schedule()
    })
    source.addEventListener('reset', (message) => {
      const { seq } = JSON.parse((message as MessageEvent).data) as { seq: number }
      for (const key of bySeq.keys()) if (key > seq) bySeq.delete(key)
      schedule()
    })
    return () => {
      source.close()
      if (frame) cancelAnimationFrame(frame)
    }
  }, [runId])
  return state
}
