// The run's snapshots: view one, compare two (what changed in the state, what the log gained), fork from one, or
// edit the state at one and replay from there.
import { useState } from 'react'
import { SnapshotDiff } from './diff-view'
import { clock, json } from './format'
import type { RunDetail } from './types'

export function SnapshotsTab(props: { detail: RunDetail; onFork(version: number): void; onEditReplay(version: number): void; onError(message: string): void }) {
  const [open, setOpen] = useState<number>()
  // The two snapshots picked for a comparison, oldest pick first (a third pick replaces the oldest).
  const [picked, setPicked] = useState<number[]>([])
  const runId = props.detail.run.id
  const toggle = (version: number) =>
    setPicked((current) => (current.includes(version) ? current.filter((value) => value !== version) : [...current, version].slice(-2)))
  const [from, to] = [...picked].sort((a, b) => a - b)
  return (
    <div className="snapshots" data-testid="snapshots">
      {props.detail.snapshots.length > 1 && (
        <div className="compare-hint">{picked.length === 2 ? '' : `Tick two snapshots to compare them (${picked.length}/2).`}</div>
      )}
      {from !== undefined && to !== undefined && <SnapshotDiff runId={runId} from={from} to={to} onError={props.onError} />}
      {props.detail.snapshots.map((snapshot) => {
        const state = snapshot.state as Record<string, unknown>
        return (
          <div key={snapshot.version} className="snapshot">
            <div className="snapshot-head">
              <label className="compare">
                <input
                  type="checkbox"
                  checked={picked.includes(snapshot.version)}
                  onChange={() => toggle(snapshot.version)}
                  aria-label={`Compare v${snapshot.version}`}
                />
                <strong>v{snapshot.version}</strong>
              </label>
              <span>step {String(state.step)}</span>
              <span>phase {String(state.phase)}</span>
              <span>log ≤ {String(state.lastSeq)}</span>
              <span>{clock(snapshot.createdAt)}</span>
              <span className="snapshot-actions">
                <button onClick={() => setOpen(open === snapshot.version ? undefined : snapshot.version)}>{open === snapshot.version ? 'Hide' : 'View'}</button>
                <button onClick={() => props.onFork(snapshot.version)} title="A new session with the messages up to this step">
                  Fork from this step
                </button>
                <button
                  className="primary"
                  onClick={() => props.onEditReplay(snapshot.version)}
                  title="Rewrite a message, replace a tool result or change the runtime state, then run again from this step (in a new session)"
                >
                  Edit & replay…
                </button>
              </span>
            </div>
            {open === snapshot.version && <pre>{json(snapshot.state)}</pre>}
          </div>
        )
      })}
      {!props.detail.snapshots.length && <div className="empty">No snapshots yet.</div>}
    </div>
  )
}
