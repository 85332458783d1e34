// The rules a run's event log keeps, as checks a test (or a client that mirrors a log) can run: numbers only grow,
// a hole is declared by the `run.resumed` after it, every answered call was announced, one terminal event, last.
import type { AgentEvent } from '../spec/events.js'

/**
 * What is wrong with one run's stored event log (`RunStore.listEvents(runId)`, in order): an empty list is a pass.
 * Checks that seqs only grow; that every hole (seqs a crashed attempt may have delivered live and never logged) is
 * exactly the `discarded` range of the `run.resumed` that follows it; that every `tool.result` / `tool.error` answers a
 * call a `tool.call` of the log announced before it, after a `step.started` of its step; and, when `finished`, that
 * the log ends with its one terminal event.
 *
 * @example
 * expect(eventLogProblems(await runtime.runs.listEvents(runId), { finished: true })).toEqual([])
 */
export function eventLogProblems(events: readonly AgentEvent[], options: { finished?: boolean } = {}): string[] {
  const problems: string[] = []
  const announced = new Set<string>()
  const started = new Set<number>()
  let previous = 0
  for (const event of events) {
    const where = `seq ${event.seq} (${event.type})`
    if (event.seq <= previous) problems.push(`${where} does not follow seq ${previous}: numbers only grow`)
    else if (event.seq > previous + 1) {
      const declared = event.type === 'run.resumed' ? event.discarded : undefined
      if (declared?.from !== previous + 1 || declared.to !== event.seq - 1) {
        problems.push(`seqs ${previous + 1}–${event.seq - 1} are missing before ${where} and no run.resumed declares them discarded`)
      }
    }
    previous = Math.max(previous, event.seq)
    if (event.type === 'step.started') started.add(event.step)
    if (event.type === 'tool.call') {
      if (!started.has(event.step)) problems.push(`${where}: call ${event.callId} of step ${event.step}, which no step.started announced`)
      announced.add(event.callId)
    }
    if ((event.type === 'tool.result' || event.type === 'tool.error') && !announced.has(event.callId)) {
      problems.push(`${where} answers call ${event.callId}, which no tool.call announced`)
    }
  }
  if (options.finished) {
    const terminal = events.filter((event) => event.type === 'run.finished' || event.type === 'run.failed')
    const last = events[events.length - 1]
    if (terminal.length !== 1 || terminal[0] !== last) problems.push(`${terminal.length} terminal events, the last event is ${last?.type ?? 'none'}`)
  }
  return problems
}

/**
 * The seqs `events` (one run's log) declares discarded: the `discarded` ranges of its `run.resumed` events. A client
 * that delivered events live drops the ones it holds in these ranges.
 *
 * @example
 * const gone = discardedSeqs(log); const kept = seen.filter((event) => !gone.has(event.seq))
 */
export function discardedSeqs(events: readonly AgentEvent[]): Set<number> {
  const seqs = new Set<number>()
  for (const event of events) {
    if (event.type !== 'run.resumed' || event.discarded === undefined) continue
    for (let seq = event.discarded.from; seq <= event.discarded.to; seq++) seqs.add(seq)
  }
  return seqs
}

/** What a subscriber saw of one event (enough to tell whether a number kept its meaning). */
export interface SeenEvent {
  seq: number
  type: string
  callId?: string
}

/**
 * What is wrong with what a live subscriber saw of one run, against the run's stored log once it ended. `connections`
 * holds what it received over each connection, in order (a new one after its process or the run's process died,
 * an SSE reconnect). Problems: a number seen twice; a number whose event differs from the log's (same seq, another
 * type or call); a number the log lacks that no `run.resumed` declares discarded; a logged event missed within one
 * connection (a live channel that lost it silently). What it missed between connections, before the first and after
 * the last is what a catch-up from its last seq (`listEvents(runId, { after })`, an SSE `Last-Event-ID`) brings.
 *
 * @example
 * expect(liveViewProblems(await runtime.runs.listEvents(runId), [seen])).toEqual([])
 */
export function liveViewProblems(log: readonly AgentEvent[], connections: ReadonlyArray<readonly SeenEvent[]>): string[] {
  const problems: string[] = []
  const gone = discardedSeqs(log)
  const bySeq = new Map<number, AgentEvent>()
  for (const event of log) bySeq.set(event.seq, event)
  const seenSeqs = new Set<number>()
  const spans: Array<[number, number]> = []
  let last = 0
  for (const seen of connections) {
    if (seen.length === 0) continue
    spans.push([seen[0]!.seq, seen[seen.length - 1]!.seq])
    for (const event of seen) {
      const where = `seen seq ${event.seq} (${event.type}${event.callId ? ` ${event.callId}` : ''})`
      if (seenSeqs.has(event.seq)) problems.push(`${where} was delivered twice`)
      seenSeqs.add(event.seq)
      if (event.seq < last) problems.push(`${where} arrived after seq ${last}`)
      last = Math.max(last, event.seq)
      const logged = bySeq.get(event.seq)
      if (gone.has(event.seq)) {
        if (logged) problems.push(`${where} is declared discarded but the log has it`)
        continue
      }
      if (!logged) problems.push(`${where} is not in the log and no run.resumed declares it discarded`)
      else if (logged.type !== event.type || ('callId' in logged ? logged.callId : undefined) !== event.callId) {
        problems.push(`${where} means ${logged.type}${'callId' in logged ? ` ${logged.callId}` : ''} in the log`)
      }
    }
  }
  for (const event of log) {
    if (seenSeqs.has(event.seq)) continue
    const span = spans.find(([first, end]) => event.seq > first && event.seq < end)
    if (span) problems.push(`logged seq ${event.seq} (${event.type}) was never delivered by the connection that delivered seqs ${span[0]}–${span[1]}`)
  }
  return problems
}
