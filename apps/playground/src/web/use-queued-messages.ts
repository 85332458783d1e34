// Messages sent while their session was busy: each waits in the session's queue without a run id, and is found
// by its ticket once its run starts; the page then moves to that run. The server lists them too, so a reload keeps them.
import { useEffect, useRef, useState } from 'react'
import { api } from './api'
import type { RunSummary, SessionGateState } from './types'

export interface QueuedMessage {
  sessionId: string
  ticket: string
  text: string
}

const pollMs = 400
const waiting = new Set<RunSummary['status']>(['queued', 'running', 'suspended'])

/**
 * Watches the queued messages of `sessionId` (the session shown). `onStarted` gets the run to show: the first of the
 * started ones still going, else the last; `onLost` the text of the messages that will never run (the gate is idle and
 * no run has their ticket).
 */
export function useQueuedMessages(options: { sessionId?: string; onStarted(sessionId: string, runId: string): void; onLost(texts: string[]): void }) {
  const [queue, setQueue] = useState<QueuedMessage[]>([])
  const callbacks = useRef(options)
  callbacks.current = options
  const { sessionId } = options
  const shown = queue.filter((message) => message.sessionId === sessionId)
  const tickets = shown.map((message) => message.ticket).join(' ')

  // The server keeps the queue: a page opened or reloaded while messages wait shows them, and follows them as usual.
  useEffect(() => {
    if (!sessionId) return
    let active = true
    api<{ messages: Array<{ ticket: string; text: string }> }>(`/sessions/${encodeURIComponent(sessionId)}/queue`).then(
      ({ messages }) => {
        if (!active || !messages.length) return
        setQueue((all) => {
          const known = new Set(all.map((message) => message.ticket))
          const added = messages.filter((message) => !known.has(message.ticket)).map((message) => ({ sessionId, ticket: message.ticket, text: message.text }))
          return added.length ? [...all, ...added] : all
        })
      },
      // Not fatal: the page shows the session without its queued messages, as it would with an older server.
      () => {},
    )
    return () => {
      active = false
    }
  }, [sessionId])

  useEffect(() => {
    if (!sessionId || !tickets) return
    const path = `/sessions/${encodeURIComponent(sessionId)}`
    const waitingFor = tickets.split(' ')
    let active = true
    let idleChecks = 0
    const check = async () => {
      // The gate before the runs: idle then, and still no run with the ticket after, means it never started.
      const { gate } = await api<{ gate: SessionGateState }>(`${path}/gate`)
      const { runs } = await api<{ runs: RunSummary[] }>(`${path}/runs`)
      if (!active) return
      const started = waitingFor.flatMap((ticket) => runs.filter((run) => run.ticket === ticket))
      idleChecks = gate.holder || gate.queued ? 0 : idleChecks + 1
      const lost = idleChecks >= 2 ? waitingFor.filter((ticket) => !started.some((run) => run.ticket === ticket)) : []
      if (!started.length && !lost.length) return
      const settled = new Set([...started.map((run) => run.ticket), ...lost])
      setQueue((all) => all.filter((message) => !settled.has(message.ticket)))
      if (lost.length) callbacks.current.onLost(shown.filter((message) => lost.includes(message.ticket)).map((message) => message.text))
      const next = started.find((run) => waiting.has(run.status)) ?? started.at(-1)
      if (next) callbacks.current.onStarted(sessionId, next.id)
    }
    // One check at a time; a failed one (the server restarting) is retried at the next.
    let timer: ReturnType<typeof setTimeout> | undefined
    const loop = async () => {
      await check().catch(() => {})
      if (active) timer = setTimeout(loop, pollMs)
    }
    timer = setTimeout(loop, pollMs)
    return () => {
      active = false
      clearTimeout(timer)
    }
  }, [sessionId, tickets])

  return {
    /** The shown session's queued messages, oldest first. */
    queued: shown,
    // Once per ticket: the server's list may have brought it already.
    add: (message: QueuedMessage) => setQueue((all) => (all.some((known) => known.ticket === message.ticket) ? all : [...all, message])),
    /** Takes a queued message back: it leaves the queue on the server, then here. Rejects when its run has started (409). */
    withdraw: async (message: QueuedMessage) => {
      await api(`/sessions/${encodeURIComponent(message.sessionId)}/queue/${encodeURIComponent(message.ticket)}`, { method: 'DELETE' })
      setQueue((all) => all.filter((known) => known.ticket !== message.ticket))
    },
  }
}
