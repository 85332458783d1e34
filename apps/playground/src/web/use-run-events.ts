// Follows one run over SSE: events kept by seq (de-duplicated, ordered). A seq never changes meaning: the SSE id is
// the seq, a reconnect resumes after it, and a `run.resumed` that declares numbers discarded (a crash's live events
// its log never got) drops the ones this page holds in that range — the interrupted step is redone with new numbers.
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
    const discarded: Array<{ from: number; to: number }> = []
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
      if (discarded.some((range) => event.seq >= range.from && event.seq <= range.to)) return
      const range =
        (event as { type: string; discarded?: { from: number; to: number } }).type === 'run.resumed'
          ? (event as { discarded?: { from: number; to: number } }).discarded
          : undefined
      if (range) {
        discarded.push(range)
        for (const seq of bySeq.keys()) if (seq >= range.from && seq <= range.to) bySeq.delete(seq)
      }
      bySeq.set(event.seq, event)
      schedule()
    })
    return () => {
      source.close()
      if (frame) cancelAnimationFrame(frame)
    }
  }, [runId])
  return state
}
