// The playground shell: model picker, sessions/runs, chat, and the run inspector. State lives in the URL hash.
import { useCallback, useEffect, useMemo, useState } from 'react'
import { api } from './api'
import { Chat } from './chat'
import { RunPanel } from './run-panel'
import { Sidebar } from './sidebar'
import type { PlaygroundConfigView, RunDetail, RunSummary, SessionEntry } from './types'
import { useRunEvents } from './use-run-events'

interface Route {
  sessionId?: string
  runId?: string
}

function readRoute(): Route {
  const match = location.hash.match(/^#\/s\/([^/]+)(?:\/r\/([^/]+))?/)
  return match ? { sessionId: decodeURIComponent(match[1]!), runId: match[2] ? decodeURIComponent(match[2]) : undefined } : {}
}

function writeRoute(route: Route): void {
  const hash = route.sessionId ? `#/s/${encodeURIComponent(route.sessionId)}${route.runId ? `/r/${encodeURIComponent(route.runId)}` : ''}` : '#/'
  if (location.hash !== hash) history.pushState(null, '', hash)
}

export function App() {
  const [config, setConfig] = useState<PlaygroundConfigView>()
  const [route, setRouteState] = useState<Route>(readRoute)
  const [model, setModel] = useState<string>(() => localStorage.getItem('spindle.model') ?? '')
  const [error, setError] = useState<string>()
  const [refresh, setRefresh] = useState(0)
  const [entries, setEntries] = useState<SessionEntry[]>([])
  const [detail, setDetail] = useState<RunDetail>()
  const [queued, setQueued] = useState(false)
  const { events, connected } = useRunEvents(route.runId)

  const setRoute = useCallback((next: Route) => {
    writeRoute(next)
    setRouteState(next)
  }, [])
  const fail = useCallback((message: string) => setError(message), [])

  useEffect(() => {
    const onPop = () => setRouteState(readRoute())
    addEventListener('popstate', onPop)
    api<PlaygroundConfigView>('/config').then(
      (data) => {
        setConfig(data)
        setModel((current) => (data.models.some((option) => option.id === current) ? current : data.models[0]!.id))
      },
      (failure) => fail(failure.message),
    )
    return () => removeEventListener('popstate', onPop)
  }, [fail])

  // The session's messages; and, when no run is chosen, its latest run.
  const lastEvent = events.at(-1)
  const settledKey = events.filter((event) => event.type === 'step.finished' || event.type === 'run.finished' || event.type === 'run.failed' || event.type === 'run.resumed').length
  useEffect(() => {
    if (!route.sessionId) {
      setEntries([])
      return
    }
    const sessionId = route.sessionId
    api<{ entries: SessionEntry[] }>(`/sessions/${encodeURIComponent(sessionId)}/messages`).then((data) => setEntries(data.entries), (failure) => fail(failure.message))
    if (!route.runId) {
      api<{ runs: RunSummary[] }>(`/sessions/${encodeURIComponent(sessionId)}/runs`).then((data) => {
        if (data.runs[0]) setRoute({ sessionId, runId: data.runs[0].id })
      }, (failure) => fail(failure.message))
    }
  }, [route.sessionId, route.runId, settledKey, refresh, fail, setRoute])

  // The run's record, snapshots, journal and gate: refreshed on key events, and polled while it runs.
  const detailKey = events.filter((event) => ['snapshot.saved', 'approval.requested', 'run.finished', 'run.failed', 'run.resumed', 'tool.result', 'step.started'].includes(event.type)).length
  const loadDetail = useCallback(() => {
    if (!route.runId) return setDetail(undefined)
    api<RunDetail>(`/runs/${encodeURIComponent(route.runId)}`).then(setDetail, (failure) => fail(failure.message))
  }, [route.runId, fail])
  useEffect(loadDetail, [loadDetail, detailKey, events.length === 0])
  const status = detail?.run.id === route.runId ? detail?.run.status : undefined
  useEffect(() => {
    if (status !== 'running' && status !== 'queued') return
    const timer = setInterval(loadDetail, 1000)
    return () => clearInterval(timer)
  }, [status, loadDetail])
  useEffect(() => {
    if (lastEvent?.type === 'run.finished' || lastEvent?.type === 'run.failed') setRefresh((value) => value + 1)
  }, [lastEvent?.type])

  const send = async (text: string) => {
    setError(undefined)
    try {
      let sessionId = route.sessionId
      // A new session is shown once its run exists: one route change, no extra requests before the first token.
      if (!sessionId) sessionId = (await api<{ session: { id: string } }>('/sessions', { body: {} })).session.id
      const started = await api<{ runId?: string; queued: boolean }>(`/sessions/${encodeURIComponent(sessionId)}/messages`, { body: { text, model } })
      setQueued(started.queued)
      if (started.runId) setRoute({ sessionId, runId: started.runId })
      else {
        setRoute({ sessionId, runId: route.runId })
        waitForQueued(sessionId, route.runId)
      }
      setRefresh((value) => value + 1)
    } catch (failure) {
      fail((failure as Error).message)
    }
  }

  const waitForQueued = (sessionId: string, previous: string | undefined) => {
    const timer = setInterval(async () => {
      const { runs } = await api<{ runs: RunSummary[] }>(`/sessions/${encodeURIComponent(sessionId)}/runs`)
      const newest = runs[0]
      if (newest && newest.id !== previous && newest.status !== 'completed') {
        clearInterval(timer)
        setQueued(false)
        setRoute({ sessionId, runId: newest.id })
      }
    }, 400)
    setTimeout(() => clearInterval(timer), 60_000)
  }

  const act = async (action: 'cancel' | 'kill' | 'resume') => {
    if (!route.runId) return
    setError(undefined)
    try {
      await api(`/runs/${encodeURIComponent(route.runId)}/${action}`, { body: {} })
      loadDetail()
      setRefresh((value) => value + 1)
    } catch (failure) {
      fail((failure as Error).message)
    }
  }

  const decide = async (callId: string, approved: boolean, reason?: string) => {
    if (!route.runId) return
    setError(undefined)
    try {
      await api(`/runs/${encodeURIComponent(route.runId)}/approve`, { body: { callId, approved, ...(reason ? { reason } : {}) } })
      loadDetail()
    } catch (failure) {
      fail((failure as Error).message)
    }
  }

  const fork = async (version: number) => {
    if (!route.runId) return
    try {
      const forked = await api<{ sessionId: string }>(`/runs/${encodeURIComponent(route.runId)}/fork`, { body: { version } })
      setRoute({ sessionId: forked.sessionId })
      setRefresh((value) => value + 1)
    } catch (failure) {
      fail((failure as Error).message)
    }
  }

  const selectedModel = useMemo(() => config?.models.find((option) => option.id === (detail?.run.model ?? model)), [config, detail, model])
  const pickedModel = config?.models.find((option) => option.id === model)
  const busy = status === 'running' || status === 'queued'

  return (
    <div className="app">
      <header className="topbar">
        <div className="brand">
          <span className="logo" /> Spindle <span className="subtle">playground</span>
        </div>
        <label className="model-picker">
          Model
          <select value={model} onChange={(event) => { setModel(event.target.value); localStorage.setItem('spindle.model', event.target.value) }} aria-label="Model">
            {config?.models.map((option) => (
              <option key={option.id} value={option.id}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        {pickedModel?.demo && <span className="badge demo" data-testid="demo-label">Demo model — scripted, offline</span>}
        <span className="badge subtle">stores: {config?.store ?? '…'}</span>
      </header>
      {error && (
        <div className="error-banner" role="alert">
          <span>{error}</span>
          <button onClick={() => setError(undefined)} aria-label="Dismiss">×</button>
        </div>
      )}
      <div className="columns">
        <Sidebar
          sessionId={route.sessionId}
          runId={route.runId}
          refresh={refresh}
          onSession={(sessionId) => { setQueued(false); setRoute({ sessionId }) }}
          onRun={(sessionId, runId) => setRoute({ sessionId, runId })}
          onError={fail}
        />
        <Chat entries={entries} runId={route.runId} events={events} busy={busy} queued={queued} onSend={send} />
        <RunPanel detail={detail?.run.id === route.runId ? detail : undefined} events={events} connected={connected} model={selectedModel} onAction={act} onDecision={decide} onFork={fork} />
      </div>
    </div>
  )
}
