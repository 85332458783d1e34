// The event log as a tool: filter by type, step and tool, search, expand and copy any event, export the run as a
// file (events, snapshots, journal, messages, model calls) and import such a file to read it here.
import { useMemo, useState } from 'react'
import { clock, json, shortJson } from '../format'
import type { AgentEvent } from '../types'
import type { RunFileView } from './debugger-types'
import { type EventFilter, filterChoices, filterEvents, noFilter } from './event-filter'

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    return false
  }
}

/** Checks an imported file the way the server's `parseRunFile` does (format and version first). */
function readRunFile(text: string): RunFileView {
  const file = JSON.parse(text) as Partial<RunFileView>
  if (file.format !== 'spindle.run-file' || file.version !== 1 || !Array.isArray(file.events) || !file.run) {
    throw new Error('This is not a run file of the playground (format "spindle.run-file", version 1); export one with "Export run".')
  }
  return file as RunFileView
}

export function EventLogPanel(props: { runId?: string; events: AgentEvent[] }) {
  const [filter, setFilter] = useState<EventFilter>(noFilter)
  const [imported, setImported] = useState<{ name: string; file: RunFileView }>()
  const [notice, setNotice] = useState<string>()
  const events = imported ? imported.file.events : props.events
  const choices = useMemo(() => filterChoices(events), [events])
  const shown = useMemo(() => filterEvents(events, filter), [events, filter])
  const set = (patch: Partial<EventFilter>) => setFilter((current) => ({ ...current, ...patch }))

  const importFile = async (file: File | undefined) => {
    if (!file) return
    try {
      setImported({ name: file.name, file: readRunFile(await file.text()) })
      setFilter(noFilter)
      setNotice(undefined)
    } catch (error) {
      setNotice(error instanceof SyntaxError ? 'This file is not valid JSON.' : (error as Error).message)
    }
  }
  const copy = async (text: string, what: string) =>
    setNotice((await copyText(text)) ? `Copied ${what}.` : 'The browser refused the clipboard; select the text and copy it instead.')

  return (
    <div className="event-tool" data-testid="event-tool">
      <div className="event-toolbar">
        <select aria-label="Event type" value={filter.type} onChange={(event) => set({ type: event.target.value })}>
          <option value="">All types</option>
          {choices.types.map((type) => (
            <option key={type}>{type}</option>
          ))}
        </select>
        <select aria-label="Step" value={filter.step} onChange={(event) => set({ step: event.target.value })}>
          <option value="">All steps</option>
          {choices.steps.map((step) => (
            <option key={step} value={String(step)}>
              step {step}
            </option>
          ))}
        </select>
        <select aria-label="Tool" value={filter.tool} onChange={(event) => set({ tool: event.target.value })}>
          <option value="">All tools</option>
          {choices.tools.map((tool) => (
            <option key={tool}>{tool}</option>
          ))}
        </select>
        <input
          className="search"
          type="search"
          aria-label="Search events"
          placeholder="Search events…"
          value={filter.search}
          onChange={(event) => set({ search: event.target.value })}
        />
        <span className="muted" data-testid="event-count">
          {shown.length} of {events.length} events
        </span>
        <span className="toolbar-end">
          <button onClick={() => copy(JSON.stringify(shown, null, 2), `${shown.length} event(s)`)} disabled={!shown.length}>
            Copy shown
          </button>
          {props.runId && !imported && (
            <a
              className="button-link"
              href={`/api/runs/${encodeURIComponent(props.runId)}/export`}
              download={`${props.runId}.run.json`}
              data-testid="export-run"
            >
              Export run
            </a>
          )}
          <label className="button-link">
            Import run file
            <input
              type="file"
              accept=".json,application/json"
              aria-label="Import run file"
              onChange={(event) => void importFile(event.target.files?.[0])}
              hidden
            />
          </label>
        </span>
      </div>
      {imported && (
        <div className="imported-banner" data-testid="imported-banner">
          Imported <strong>{imported.name}</strong>: run <code>{imported.file.run.id}</code> ({imported.file.run.status}), exported {imported.file.exportedAt} ·{' '}
          {imported.file.events.length} events, {imported.file.snapshots.length} snapshots, {imported.file.journal.length} journaled calls,{' '}
          {imported.file.modelCalls.length} model calls, {imported.file.subRuns.length} sub-runs
          <button onClick={() => setImported(undefined)}>Back to the live run</button>
        </div>
      )}
      {notice && (
        <div className="notice" role="status">
          {notice}
        </div>
      )}
      <ol className="event-rows" data-testid="event-rows">
        {shown.map((event) => (
          <li key={`${event.runId}:${event.seq}`} data-seq={event.seq} data-type={event.type}>
            <details>
              <summary>
                <span className="seq">{event.seq}</span>
                <span className="time">{clock(event.timestamp)}</span>
                <span className={`type type-${event.type.split('.')[0]}`}>{event.type}</span>
                <span className="payload">{shortJson(payloadOf(event), 140)}</span>
              </summary>
              <div className="event-detail">
                <button onClick={() => copy(json(event), `event ${event.seq}`)}>Copy</button>
                <pre>{json(event)}</pre>
              </div>
            </details>
          </li>
        ))}
      </ol>
      {!shown.length && <p className="muted">{events.length ? 'No event matches these filters.' : 'No events yet.'}</p>}
    </div>
  )
}

function payloadOf(event: AgentEvent): unknown {
  const { runId: _runId, sessionId: _sessionId, seq: _seq, timestamp: _timestamp, type: _type, ...payload } = event
  return payload
}
