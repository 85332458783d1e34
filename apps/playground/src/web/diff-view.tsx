// Diffs: two snapshots of a run (the state fields that changed, the log entries written between them), and a fork
// beside its parent (the two conversations aligned, the runtime states).
import { useEffect, useState } from 'react'
import { api } from './api'
import { shortJson } from './format'

/** One difference between two JSON values (the server's `ValueChange`). */
export interface ValueChange {
  path: string
  kind: 'added' | 'removed' | 'changed'
  before?: unknown
  after?: unknown
}

interface DiffEntry {
  seq: number
  role: string
  text: string
}

interface SnapshotDiffData {
  from: { version: number; step: number }
  to: { version: number; step: number }
  state: ValueChange[]
  entries: DiffEntry[]
  direction: 'added' | 'removed'
}

interface ForkDiffData {
  parent: { sessionId: string; title?: string; runId?: string; version?: number | null; step?: number; purpose: string }
  rows: Array<{ kind: 'same' | 'edited' | 'parent' | 'fork'; parent?: DiffEntry; fork?: DiffEntry }>
  runtimeState: ValueChange[]
}

function useLoaded<T>(path: string, onError: (message: string) => void): T | undefined {
  const [data, setData] = useState<{ path: string; value: T }>()
  useEffect(() => {
    let current = true
    api<T>(path).then(
      (value) => current && setData({ path, value }),
      (failure) => current && onError((failure as Error).message),
    )
    return () => {
      current = false
    }
  }, [path])
  return data?.path === path ? data.value : undefined
}

/** The changes of a JSON value, one row per path. */
export function ChangeTable(props: { changes: ValueChange[]; empty: string; testId?: string }) {
  if (!props.changes.length) return <div className="empty">{props.empty}</div>
  return (
    <table className="diff-table" data-testid={props.testId}>
      <tbody>
        {props.changes.map((change) => (
          <tr key={change.path} className={`diff-${change.kind}`}>
            <td className="diff-path">{change.path}</td>
            <td className="diff-before">{change.kind === 'added' ? '' : shortJson(change.before, 80)}</td>
            <td className="diff-arrow">→</td>
            <td className="diff-after">{change.kind === 'removed' ? '(removed)' : shortJson(change.after, 80)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

export function SnapshotDiff(props: { runId: string; from: number; to: number; onError(message: string): void }) {
  const data = useLoaded<SnapshotDiffData>(`/runs/${encodeURIComponent(props.runId)}/snapshots/diff?from=${props.from}&to=${props.to}`, props.onError)
  if (!data)
    return (
      <div className="diff" data-testid="snapshot-diff">
        Comparing…
      </div>
    )
  return (
    <div className="diff" data-testid="snapshot-diff">
      <div className="diff-title">
        v{data.from.version} (step {data.from.step}) → v{data.to.version} (step {data.to.step})
      </div>
      <div className="kv">State</div>
      <ChangeTable changes={data.state} empty="The state is the same." testId="state-diff" />
      <div className="kv">Log entries {data.direction === 'added' ? 'written' : 'taken back'} between them</div>
      {data.entries.length ? (
        <ol className="diff-entries">
          {data.entries.map((entry) => (
            <li key={entry.seq} className={`diff-${data.direction}`}>
              <span className="role">{entry.role}</span> {entry.text}
            </li>
          ))}
        </ol>
      ) : (
        <div className="empty">None.</div>
      )}
    </div>
  )
}

/** Calls `onClose` when Escape is pressed (a dialog's keyboard exit). */
export function useEscape(onClose: () => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose()
    }
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [onClose])
}

/** A fork (or a replay, or a retry) beside the session it came from, as a dialog. */
export function ForkDiff(props: { sessionId: string; onClose(): void; onError(message: string): void }) {
  const data = useLoaded<ForkDiffData>(`/sessions/${encodeURIComponent(props.sessionId)}/fork-diff`, props.onError)
  useEscape(props.onClose)
  return (
    <div className="dialog-backdrop" onClick={props.onClose}>
      <div className="dialog" role="dialog" aria-label="Compare with parent" data-testid="fork-diff" onClick={(event) => event.stopPropagation()}>
        <header className="dialog-head">
          <strong>This {data?.parent.purpose ?? 'fork'} beside its parent</strong>
          <span className="subtle">
            {data ? `${data.parent.title ?? data.parent.sessionId}${data.parent.step !== undefined ? ` · from step ${data.parent.step}` : ''}` : ''}
          </span>
          <button onClick={props.onClose} aria-label="Close">
            ×
          </button>
        </header>
        {!data ? (
          <div className="empty">Loading…</div>
        ) : (
          <div className="dialog-body">
            <div className="kv">Runtime state (RuntimeStore)</div>
            <ChangeTable changes={data.runtimeState} empty="The same runtime state." testId="runtime-state-diff" />
            <div className="kv">Conversation</div>
            <div className="fork-rows">
              <div className="fork-row head">
                <span>Parent</span>
                <span>This session</span>
              </div>
              {data.rows.map((row, index) => (
                <div key={index} className={`fork-row row-${row.kind}`} data-kind={row.kind}>
                  <span>{row.parent ? <Entry entry={row.parent} /> : null}</span>
                  <span>{row.fork ? <Entry entry={row.fork} /> : null}</span>
                </div>
              ))}
            </div>
          </div>
        )}
      </div>
    </div>
  )
}

function Entry(props: { entry: DiffEntry }) {
  return (
    <>
      <span className="role">{props.entry.role}</span> {props.entry.text}
    </>
  )
}
