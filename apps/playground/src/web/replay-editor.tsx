// Edit and replay: the log up to a snapshot, each message's text and each tool result editable, and the runtime state
// (what the tools find in their RuntimeStore); Replay runs again from that step in a new session.
import { useEffect, useState } from 'react'
import { api } from './api'
import { useEscape } from './diff-view'
import type { ModelOption, SessionEntry, StartedRun } from './types'

interface EntriesView {
  version: number
  step?: number
  firstSeq: number
  entries: SessionEntry[]
  runtimeState: Record<string, unknown>
}

type Field =
  { key: string; label: string; initial: string; kind: 'text'; seq: number } | { key: string; label: string; initial: string; kind: 'result'; callId: string }

function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'null'
}

/** The editable fields of the log: a user or assistant message's text, a tool result's JSON. */
type FieldGroup = { entry: SessionEntry; fields: Field[]; calls: string[] }

function fieldsOf(entries: SessionEntry[]): FieldGroup[] {
  return entries.flatMap((entry): FieldGroup[] => {
    if (entry.kind !== 'message') return []
    const message = entry.message
    if (message.role === 'user') {
      const text = typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ')
      return [
        { entry, calls: [], fields: [{ key: `m${entry.seq}`, label: `Message ${entry.seq} (user)`, initial: text, kind: 'text' as const, seq: entry.seq }] },
      ]
    }
    if (message.role === 'assistant') {
      const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
      const calls = message.content.flatMap((part) => (part.type === 'tool-call' ? [`${part.toolName}(${JSON.stringify(part.args)})`] : []))
      return [
        { entry, calls, fields: [{ key: `m${entry.seq}`, label: `Message ${entry.seq} (assistant)`, initial: text, kind: 'text' as const, seq: entry.seq }] },
      ]
    }
    if (message.role === 'tool') {
      const fields = message.content.map((part) => ({
        key: `r${part.toolCallId}`,
        label: `Result of ${part.toolName} (${part.toolCallId})`,
        initial: pretty(part.result),
        kind: 'result' as const,
        callId: part.toolCallId,
      }))
      return [{ entry, calls: [], fields }]
    }
    return []
  })
}

export function ReplayEditor(props: {
  runId: string
  version: number
  models: ModelOption[]
  model: string
  onClose(): void
  onStarted(started: StartedRun): void
}) {
  const [view, setView] = useState<EntriesView>()
  const [values, setValues] = useState<Record<string, string>>({})
  const [model, setModel] = useState(props.model)
  const [problem, setProblem] = useState<string>()
  const [sending, setSending] = useState(false)
  useEscape(props.onClose)
  useEffect(() => {
    api<EntriesView>(`/runs/${encodeURIComponent(props.runId)}/snapshots/${props.version}/entries`).then(setView, (failure) =>
      setProblem((failure as Error).message),
    )
  }, [props.runId, props.version])
  const groups = view ? fieldsOf(view.entries) : []
  const stateText = view ? pretty(view.runtimeState) : ''
  const valueOf = (field: { key: string; initial: string }) => values[field.key] ?? field.initial

  const replay = async () => {
    if (!view) return
    setProblem(undefined)
    const messages: Array<{ seq: number; text: string }> = []
    const toolResults: Array<{ callId: string; result: unknown }> = []
    try {
      for (const field of groups.flatMap((group) => group.fields)) {
        const value = valueOf(field)
        if (value === field.initial) continue
        if (field.kind === 'text') messages.push({ seq: field.seq, text: value })
        else toolResults.push({ callId: field.callId, result: parseJson(value, field.label) })
      }
      const state = values.runtimeState === undefined || values.runtimeState === stateText ? undefined : parseJson(values.runtimeState, 'The runtime state')
      if (state !== undefined && (typeof state !== 'object' || state === null || Array.isArray(state)))
        throw new Error('The runtime state must be a JSON object ({ "key": value, … })')
      setSending(true)
      const started = await api<StartedRun>(`/runs/${encodeURIComponent(props.runId)}/replay`, {
        body: { version: props.version, edits: { messages, toolResults }, ...(state !== undefined ? { runtimeState: state } : {}), model },
      })
      props.onStarted(started)
    } catch (failure) {
      setProblem((failure as Error).message)
    } finally {
      setSending(false)
    }
  }

  return (
    <div className="dialog-backdrop" onClick={props.onClose}>
      <div className="dialog" role="dialog" aria-label="Edit and replay" data-testid="replay-editor" onClick={(event) => event.stopPropagation()}>
        <header className="dialog-head">
          <strong>Edit and replay from v{props.version}</strong>
          <span className="subtle">{view?.step !== undefined ? `step ${view.step} · ` : ''}a new session; this run stays as it is</span>
          <button onClick={props.onClose} aria-label="Close">
            ×
          </button>
        </header>
        <div className="dialog-body">
          {!view && !problem && <div className="empty">Loading…</div>}
          {groups.map((group) => (
            <div key={group.entry.seq} className={`edit-entry role-${group.entry.kind === 'message' ? group.entry.message.role : 'other'}`}>
              {group.fields.map((field) => (
                <label key={field.key} className="edit-field">
                  <span className="kv">{field.label}</span>
                  <textarea
                    aria-label={field.label}
                    className={field.kind === 'result' ? 'mono' : ''}
                    rows={Math.min(8, Math.max(2, valueOf(field).split('\n').length))}
                    value={valueOf(field)}
                    onChange={(event) => setValues((current) => ({ ...current, [field.key]: event.target.value }))}
                  />
                </label>
              ))}
              {group.calls.map((call) => (
                <div key={call} className="edit-call">
                  calls <code>{call}</code>
                </div>
              ))}
            </div>
          ))}
          {view && (
            <label className="edit-field">
              <span className="kv">Runtime state (RuntimeStore: what the tools read; not sent to the model)</span>
              <textarea
                aria-label="Runtime state"
                className="mono"
                rows={Math.min(10, (values.runtimeState ?? stateText).split('\n').length)}
                value={values.runtimeState ?? stateText}
                onChange={(event) => setValues((current) => ({ ...current, runtimeState: event.target.value }))}
              />
            </label>
          )}
          {problem && (
            <div className="error-line" role="alert">
              {problem}
            </div>
          )}
        </div>
        <footer className="dialog-foot">
          <label className="model-picker">
            Model
            <select aria-label="Replay model" value={model} onChange={(event) => setModel(event.target.value)}>
              {props.models.map((option) => (
                <option key={option.id} value={option.id}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          <button onClick={props.onClose}>Close</button>
          <button className="primary" disabled={!view || sending} onClick={() => void replay()}>
            Replay from here
          </button>
        </footer>
      </div>
    </div>
  )
}

function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new Error(`${label} is not valid JSON`)
  }
}
