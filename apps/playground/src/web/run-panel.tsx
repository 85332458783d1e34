// The run inspector: status, gate, controls, approval prompt, timeline, raw events, snapshots, journal.
import { useLayoutEffect, useRef, useState } from 'react'
import { pendingApprovals, timeline } from './derive'
import { cost, duration, json, shortId, shortJson, tokens } from './format'
import { SnapshotsTab } from './snapshots-tab'
import { TimelineView } from './timeline-view'
import type { AgentEvent, ModelOption, RunDetail } from './types'

type Tab = 'timeline' | 'events' | 'snapshots' | 'journal'

export function RunPanel(props: {
  detail?: RunDetail
  events: AgentEvent[]
  connected: boolean
  model?: ModelOption
  onAction(action: 'cancel' | 'kill' | 'resume'): Promise<void>
  /** Resolves true once the server took the decision. */
  onDecision(callId: string, approved: boolean, reason?: string): Promise<boolean>
  onFork(version: number): void
  /** Opens the editor of the state at a snapshot, to replay from there. */
  onEditReplay(version: number): void
  /** Starts a failed run again from its last good snapshot (a new session). */
  onRetry(): Promise<void>
  onError(message: string): void
  /** False while the server does not answer: the controls wait for it. */
  reachable: boolean
}) {
  const [tab, setTab] = useState<Tab>('timeline')
  // One control request at a time: a double click must not send a second one (refused, it would show an error).
  const [acting, act] = useInFlight()
  const { detail, events } = props
  if (!detail) return <section className="panel empty-panel">Send a message or pick a run to inspect it here.</section>
  const run = detail.run
  const gate = detail.gate
  const approvals = run.status === 'suspended' ? pendingApprovals(events) : []
  const view = timeline(events)
  const usage = view.usage ?? run.usage
  // The session is busy while a run holds its gate, and also while this run waits for a decision or a resume (its
  // gate is free then, but a message sent waits all the same).
  const gateState = gate.holder ? 'running' : run.status === 'suspended' ? 'awaiting approval' : run.status === 'interrupted' ? 'interrupted' : 'idle'
  const gateTitle = gate.holder
    ? `held by ${gate.holder}`
    : gateState === 'idle'
      ? 'no run holds the session'
      : `no run holds the gate, but this run ${gateState === 'interrupted' ? 'is interrupted' : 'awaits approval'}: a message sent now waits until it is ${gateState === 'interrupted' ? 'resumed or cancelled' : 'decided'}`
  const offline = props.reachable ? '' : ' (the server does not answer: wait for it)'
  return (
    <section className="panel" data-testid="run-panel">
      <header className="run-header">
        <div className="run-title">
          <strong title={run.id}>{shortId(run.id)}</strong>
          <span className={`badge status-${run.status}`} data-testid="run-status">
            {run.status}
          </span>
          {run.finishReason && <span className="badge subtle">{run.finishReason}</span>}
          <span className={`badge gate ${gateState !== 'idle' ? 'busy' : ''}`} data-testid="gate-state" title={gateTitle}>
            gate: {gateState}
            {gate.queued ? ` · ${gate.queued} queued` : ''}
          </span>
          <span className={`dot ${props.connected ? 'on' : ''}`} title={props.connected ? 'live' : 'disconnected'} />
        </div>
        <div className="run-stats">
          <span>{run.model}</span>
          <span>{tokens(usage)}</span>
          <span>
            {cost(usage, props.model)}
            {props.model?.pricing?.note && usage.costUsd === undefined ? <span className="price-note"> ({props.model.pricing.note})</span> : null}
          </span>
          <span>{view.steps.length} step(s)</span>
        </div>
        <div className="controls">
          <button
            onClick={() => act(() => props.onAction('cancel'))}
            disabled={acting || !props.reachable || (run.status !== 'running' && run.status !== 'suspended' && run.status !== 'interrupted')}
            title={`End the run now (final: finish reason cancelled)${offline}`}
          >
            Cancel
          </button>
          <button
            className="danger"
            onClick={() => act(() => props.onAction('kill'))}
            disabled={acting || !props.reachable || run.status !== 'running'}
            title={`Kill the run like a crashed process: it stops where it is and can be resumed${offline}`}
          >
            Kill
          </button>
          <button
            className="primary"
            onClick={() => act(() => props.onAction('resume'))}
            disabled={acting || !props.reachable || !(run.status === 'interrupted' || (run.status === 'suspended' && !approvals.length))}
            title={`Continue from the last snapshot${offline}`}
          >
            Resume
          </button>
          {run.status === 'failed' && (
            <button
              className="primary"
              onClick={() => act(props.onRetry)}
              disabled={acting || !props.reachable}
              title={`Run again from the failed run's last good snapshot, with the model picked above (a new session; this run stays as it is)${offline}`}
            >
              Retry
            </button>
          )}
        </div>
        {(run.error || detail.backgroundError) && (
          <div className="error-line">{run.error ? `${run.error.code}: ${run.error.message}` : detail.backgroundError}</div>
        )}
      </header>
      {approvals.map((call) => (
        <Approval key={call.callId} call={call} onDecision={props.onDecision} />
      ))}
      <div className="tabs">
        {(['timeline', 'events', 'snapshots', 'journal'] as Tab[]).map((name) => (
          <button key={name} className={tab === name ? 'active' : ''} onClick={() => setTab(name)}>
            {name}
            {name === 'events'
              ? ` (${events.length})`
              : name === 'snapshots'
                ? ` (${detail.snapshots.length})`
                : name === 'journal'
                  ? ` (${detail.journal.length})`
                  : ''}
          </button>
        ))}
      </div>
      <div className="tab-body">
        {tab === 'timeline' && (
          <TimelineView view={view} model={props.model} live={run.status === 'running' || run.status === 'queued'} interrupted={run.status === 'interrupted'} />
        )}
        {tab === 'events' && <EventLog events={events} />}
        {tab === 'snapshots' && <SnapshotsTab detail={detail} onFork={props.onFork} onEditReplay={props.onEditReplay} onError={props.onError} />}
        {tab === 'journal' && <Journal detail={detail} />}
      </div>
    </section>
  )
}

/**
 * `[busy, run]`: `run(request)` sends the request unless one is in flight, and `busy` holds until it settles. The ref
 * refuses a second click that comes before React re-renders the disabled button.
 */
function useInFlight(): [boolean, (request: () => Promise<void>) => void] {
  const [busy, setBusy] = useState(false)
  const inFlight = useRef(false)
  const run = (request: () => Promise<void>) => {
    if (inFlight.current) return
    inFlight.current = true
    setBusy(true)
    void request().finally(() => {
      inFlight.current = false
      setBusy(false)
    })
  }
  return [busy, run]
}

function Approval(props: {
  call: { callId: string; toolName: string; args: unknown }
  onDecision(callId: string, approved: boolean, reason?: string): Promise<boolean>
}) {
  const [reason, setReason] = useState('')
  const [deciding, run] = useInFlight()
  // Taken: the buttons stay disabled until the prompt goes (the run's status is reloaded after the answer).
  const [decided, setDecided] = useState(false)
  // A decision taken from the keyboard: when the prompt goes, the focus goes to the composer, not to the page's start.
  // Noted when deciding, since the disabled button has lost the focus by the time the prompt goes.
  const box = useRef<HTMLDivElement>(null)
  const decidedFromInside = useRef(false)
  useLayoutEffect(
    () => () => {
      const focus = document.activeElement
      if (decidedFromInside.current && (!focus || focus === document.body || box.current?.contains(focus))) document.getElementById('composer')?.focus()
    },
    [],
  )
  const decide = (approved: boolean) =>
    run(async () => {
      decidedFromInside.current = Boolean(box.current?.contains(document.activeElement))
      if (await props.onDecision(props.call.callId, approved, reason || undefined)) setDecided(true)
    })
  return (
    <div className="approval" data-testid="approval" ref={box}>
      <div>
        <strong>Approval needed:</strong> the agent wants to call <code>{props.call.toolName}</code>
      </div>
      <pre>{json(props.call.args)}</pre>
      <div className="approval-actions">
        <input placeholder="Reason (optional, sent to the model)" value={reason} onChange={(event) => setReason(event.target.value)} />
        <button className="primary" disabled={deciding || decided} onClick={() => decide(true)}>
          Approve
        </button>
        <button className="danger" disabled={deciding || decided} onClick={() => decide(false)}>
          Deny
        </button>
      </div>
    </div>
  )
}

function EventLog(props: { events: AgentEvent[] }) {
  const start = props.events[0]?.timestamp ?? 0
  return (
    <ol className="event-log" data-testid="event-log">
      {props.events.map((event) => {
        const { runId: _runId, sessionId: _sessionId, seq, timestamp, type, ...rest } = event as AgentEvent & Record<string, unknown>
        return (
          <li key={seq} data-seq={seq}>
            <span className="seq">{seq}</span>
            <span className="time">+{duration(timestamp - start)}</span>
            <span className={`type type-${type.split('.')[0]}`}>{type}</span>
            <span className="payload">{shortJson(rest, 120)}</span>
            {discardedNote(event) && (
              <span className="discarded" data-testid="discarded-note">
                {discardedNote(event)}
              </span>
            )}
          </li>
        )
      })}
    </ol>
  )
}

/** A resume's declaration of the numbers a crash discarded (events shown live, then dropped: the step is redone). */
function discardedNote(event: AgentEvent): string | undefined {
  const range =
    (event as { type: string; discarded?: { from: number; to: number } }).type === 'run.resumed'
      ? (event as { discarded?: { from: number; to: number } }).discarded
      : undefined
  if (!range) return undefined
  const count = range.to - range.from + 1
  return `${count} event number${count === 1 ? '' : 's'} (${range.from}–${range.to}) discarded by a crash, the step is redone`
}

function Journal(props: { detail: RunDetail }) {
  return (
    <table className="journal">
      <thead>
        <tr>
          <th>step</th>
          <th>tool</th>
          <th>status</th>
          <th>attempt</th>
          <th>time</th>
        </tr>
      </thead>
      <tbody>
        {props.detail.journal.map((record) => (
          <tr key={record.key} title={JSON.stringify(record.result ?? record.error ?? null)}>
            <td>{record.step}</td>
            <td>
              <code>{record.toolName}</code> {shortJson(record.args, 40)}
            </td>
            <td>{record.status}</td>
            <td>{record.attempt}</td>
            <td>{record.finishedAt ? duration(record.finishedAt - record.startedAt) : '…'}</td>
          </tr>
        ))}
        {!props.detail.journal.length && (
          <tr>
            <td colSpan={5} className="empty">
              No tool executions.
            </td>
          </tr>
        )}
      </tbody>
    </table>
  )
}
