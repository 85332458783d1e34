// Sessions and runs, each list searchable. Each item is a button, so the lists work from the keyboard too.
import { useEffect, useState } from 'react'
import { api } from './api'
import { clock, inputText, shortId } from './format'
import type { RunSummary, SessionRecord } from './types'

/** A session as the list shows it: `attention` when its run awaits approval or is interrupted. */
type ListedSession = SessionRecord & { attention?: 'awaiting approval' | 'interrupted' }

export function Sidebar(props: {
  sessionId?: string
  runId?: string
  refresh: number
  onSession(id: string | undefined): void
  onRun(sessionId: string, runId: string): void
  onError(message: string): void
}) {
  const [tab, setTab] = useState<'sessions' | 'runs'>('sessions')
  const [search, setSearch] = useState('')
  const [sessions, setSessions] = useState<ListedSession[]>([])
  const [runs, setRuns] = useState<RunSummary[]>([])
  useEffect(() => {
    const handle = setTimeout(
      () => {
        const q = search ? `?q=${encodeURIComponent(search)}` : ''
        if (tab === 'sessions')
          api<{ sessions: ListedSession[] }>(`/sessions${q}`).then(
            (data) => setSessions(data.sessions),
            (error) => props.onError(error.message),
          )
        else
          api<{ runs: RunSummary[] }>(`/runs${q}`).then(
            (data) => setRuns(data.runs),
            (error) => props.onError(error.message),
          )
      },
      search ? 150 : 0,
    )
    return () => clearTimeout(handle)
  }, [tab, search, props.refresh])

  return (
    <aside className="sidebar">
      <div className="tabs">
        <button className={tab === 'sessions' ? 'active' : ''} onClick={() => setTab('sessions')}>
          Sessions
        </button>
        <button className={tab === 'runs' ? 'active' : ''} onClick={() => setTab('runs')}>
          Runs
        </button>
      </div>
      <input
        className="search"
        placeholder={`Search ${tab}…`}
        value={search}
        onChange={(event) => setSearch(event.target.value)}
        aria-label={`Search ${tab}`}
      />
      {tab === 'sessions' && (
        <button className="new-session" onClick={() => props.onSession(undefined)}>
          + New session
        </button>
      )}
      <ul className="list" data-testid={`${tab}-list`}>
        {tab === 'sessions' &&
          sessions.map((session) => (
            <li key={session.id} className={session.id === props.sessionId ? 'selected' : ''}>
              <button type="button" aria-current={session.id === props.sessionId ? 'true' : undefined} onClick={() => props.onSession(session.id)}>
                <div className="title" dir="auto">
                  {session.title || shortId(session.id)}
                </div>
                <div className="meta">
                  {clock(session.updatedAt)} · {session.lastSeq} entries{session.metadata?.forkedFrom ? ' · fork' : ''}
                  {session.attention && (
                    <span className={`badge attention status-${session.attention === 'interrupted' ? 'interrupted' : 'suspended'}`}>{session.attention}</span>
                  )}
                </div>
              </button>
            </li>
          ))}
        {tab === 'runs' &&
          runs.map((run) => (
            <li key={run.id} className={run.id === props.runId ? 'selected' : ''}>
              <button type="button" aria-current={run.id === props.runId ? 'true' : undefined} onClick={() => props.onRun(run.sessionId, run.id)}>
                <div className="title" dir="auto">
                  {inputText(run.input) || shortId(run.id)}
                </div>
                <div className="meta">
                  <span className={`badge status-${run.status}`}>{run.status}</span> {clock(run.createdAt)} · {shortId(run.id)}
                </div>
              </button>
            </li>
          ))}
        {tab === 'sessions' && !sessions.length && <li className="empty">No sessions{search ? ' match' : ' yet'}.</li>}
        {tab === 'runs' && !runs.length && <li className="empty">No runs{search ? ' match' : ' yet'}.</li>}
      </ul>
    </aside>
  )
}
