// The playground shell: model picker, sessions/runs, chat, and the run inspector. State lives in the URL hash.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { api, ApiFailure, onReachableAgain, unreachableMessage } from './api'
import { Chat } from './chat'
import { ForkDiff } from './diff-view'
import { ForkBanner, useForkOrigin } from './fork-banner'
import { ReplayEditor } from './replay-editor'
import { useReachable } from './use-reachable'
import { DebuggerLauncher } from './panels/debugger-drawer'
import { readRoute, type Route, writeRoute } from './route'
import { RunPanel } from './run-panel'
import { Sidebar } from './sidebar'
import type { PlaygroundConfigView, RunDetail, RunSummary, SessionEntry, StartedRun } from './types'
import { useQueuedMessages } from './use-queued-messages'
import { useRunEvents } from './use-run-events'

/** The server's limit until /config answers (it sends the real one). */
const defaultMessageChars = 20_000

export function App() {
  const [config, setConfig] = useState<PlaygroundConfigView>()
  const [route, setRouteState] = useState<Route>(readRoute)
  const [model, setModel] = useState<string>(() => localStorage.getItem('spindle.model') ?? '')
  const [error, setError] = useState<string>()
  const [refresh, setRefresh] = useState(0)
  // The messages loaded, and the session they are of: another session's are never shown, even for a moment.
  const [loaded, setLoaded] = useState<{ sessionId?: string; entries: SessionEntry[] }>({ entries: [] })
  // The session's runs, for how each earlier run ended (a cancelled or failed one says so in the conversation).
  const [sessionRuns, setSessionRuns] = useState<{ sessionId?: string; runs: RunSummary[] }>({ runs: [] })
  const [detail, setDetail] = useState<RunDetail>()
  const reachable = useReachable()
  // The snapshot whose state the replay editor shows (closed when undefined), and the fork-vs-parent comparison.
  const [replayFrom, setReplayFrom] = useState<number>()
  const [comparing, setComparing] = useState(false)
  const forkOrigin = useForkOrigin(route.sessionId, refresh)
  const { events, connected } = useRunEvents(route.runId)
  // The route as of now, for answers that arrive after the user may have moved on.
  const routeNow = useRef(route)
  routeNow.current = route

  const setRoute = useCallback((next: Route, mode: 'push' | 'replace' = 'push') => {
    writeRoute(next, mode)
    routeNow.current = next
    setRouteState(next)
  }, [])
  const fail = useCallback((message: string) => setError(message), [])
  // "Not reachable" is taken back as soon as the server answers again.
  useEffect(() => onReachableAgain(() => setError((current) => (current === unreachableMessage ? undefined : current))), [])
  const queue = useQueuedMessages({
    sessionId: route.sessionId,
    onStarted(sessionId, runId) {
      if (routeNow.current.sessionId !== sessionId || routeNow.current.runId === runId) return
      setRoute({ sessionId, runId }, 'replace')
      setRefresh((value) => value + 1)
    },
    // Their text is shown, so that nothing typed is lost.
    onLost: (texts) =>
      fail(
        `${texts.length === 1 ? 'A queued message' : `${texts.length} queued messages`} did not start; send ${texts.length === 1 ? 'it' : 'them'} again: ${texts.map((text) => `“${text}”`).join(', ')}`,
      ),
  })

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
  const settledKey = events.filter(
    (event) => event.type === 'step.finished' || event.type === 'run.finished' || event.type === 'run.failed' || event.type === 'run.resumed',
  ).length
  useEffect(() => {
    if (!route.sessionId) {
      setLoaded({ entries: [] })
      return
    }
    const sessionId = route.sessionId
    // An answer that comes after the page moved on (another session, or a newer load of this one) is not shown.
    let current = true
    api<{ entries: SessionEntry[] }>(`/sessions/${encodeURIComponent(sessionId)}/messages`).then(
      (data) => {
        if (current && routeNow.current.sessionId === sessionId) setLoaded({ sessionId, entries: data.entries })
      },
      (failure) => current && fail(failure.message),
    )
    const choose = !route.runId
    api<{ runs: RunSummary[] }>(`/sessions/${encodeURIComponent(sessionId)}/runs`).then(
      (data) => {
        if (current && routeNow.current.sessionId === sessionId) setSessionRuns({ sessionId, runs: data.runs })
        // Opening a session shows its latest run: the same page, so the address is replaced, not pushed.
        const stillHere = routeNow.current.sessionId === sessionId && !routeNow.current.runId
        if (choose && data.runs[0] && stillHere) setRoute({ sessionId, runId: data.runs[0].id }, 'replace')
      },
      (failure) => current && fail(failure.message),
    )
    return () => {
      current = false
    }
  }, [route.sessionId, route.runId, settledKey, refresh, fail, setRoute])

  // The run's record, snapshots, journal and gate: refreshed on key events, and polled while it runs.
  const detailKey = events.filter((event) =>
    ['snapshot.saved', 'approval.requested', 'run.finished', 'run.failed', 'run.resumed', 'tool.result', 'step.started'].includes(event.type),
  ).length
  /** Settles once the detail is shown (or the load failed). */
  const reloadDetail = useCallback(async (): Promise<void> => {
    if (!route.runId) return setDetail(undefined)
    await api<RunDetail>(`/runs/${encodeURIComponent(route.runId)}`).then(setDetail, (failure) => fail(failure.message))
  }, [route.runId, fail])
  const loadDetail = useCallback(() => void reloadDetail(), [reloadDetail])
  useEffect(loadDetail, [loadDetail, detailKey, events.length === 0])
  const shown = detail?.run.id === route.runId ? detail : undefined
  const status = shown?.run.status
  // Another run of the session holds its gate or waits for it (a queued message, or a run started elsewhere).
  const gateBusy = Boolean(shown && ((shown.gate.holder && shown.gate.holder !== shown.run.id) || shown.gate.queued))
  useEffect(() => {
    if (status !== 'running' && status !== 'queued' && !gateBusy) return
    const timer = setInterval(loadDetail, 1000)
    return () => clearInterval(timer)
  }, [status, gateBusy, loadDetail])
  useEffect(() => {
    if (lastEvent?.type === 'run.finished' || lastEvent?.type === 'run.failed') setRefresh((value) => value + 1)
  }, [lastEvent?.type])
  // When the session's other runs are done, their messages are loaded (and the sidebar's counts refreshed).
  const wasBusy = useRef(false)
  useEffect(() => {
    if (wasBusy.current && !gateBusy) setRefresh((value) => value + 1)
    wasBusy.current = gateBusy
  }, [gateBusy])

  const messageChars = config?.limits?.messageChars ?? defaultMessageChars
  const entries = loaded.sessionId === route.sessionId ? loaded.entries : []
  const runs = sessionRuns.sessionId === route.sessionId ? sessionRuns.runs : []

  /** Resolves true once the server took the message; on false the composer keeps the text. */
  const send = async (text: string): Promise<boolean> => {
    setError(undefined)
    if (text.length > messageChars) {
      fail(
        `The message is ${text.length.toLocaleString('en-US')} characters long; the limit is ${messageChars.toLocaleString('en-US')}. Shorten it and send again.`,
      )
      return false
    }
    try {
      const sessionId = route.sessionId
      // A new session is created with its first message, in one request: a refused message leaves no empty session.
      const path = sessionId ? `/sessions/${encodeURIComponent(sessionId)}/messages` : '/messages'
      const started = await api<StartedRun>(path, { body: { text, model } })
      if (started.runId) setRoute({ sessionId: started.sessionId, runId: started.runId })
      else {
        queue.add({ sessionId: started.sessionId, ticket: started.ticket, text })
        if (!sessionId) setRoute({ sessionId: started.sessionId })
        else loadDetail() // the gate's queue count, at once
      }
      setRefresh((value) => value + 1)
      return true
    } catch (failure) {
      fail((failure as Error).message)
      return false
    }
  }

  /** Withdraws a queued message; one whose run started meanwhile is refused (409) and shown with its run. */
  const withdraw = async (ticket: string) => {
    const message = queue.queued.find((queued) => queued.ticket === ticket)
    if (!message) return
    setError(undefined)
    try {
      await queue.withdraw(message)
      loadDetail() // the gate's queue count, at once
    } catch (failure) {
      fail((failure as Error).message)
    }
  }

  const act = async (action: 'cancel' | 'kill' | 'resume') => {
    if (!route.runId) return
    setError(undefined)
    try {
      await api(`/runs/${encodeURIComponent(route.runId)}/${action}`, { body: {} })
      setRefresh((value) => value + 1)
      // The controls stay disabled until the run's new status is shown.
      await reloadDetail()
    } catch (failure) {
      fail((failure as Error).message)
      // 409: the run is no longer in the state the page showed (it ended, or another tab acted): show the new one.
      if (isConflict(failure)) await reloadDetail()
    }
  }

  const decide = async (callId: string, approved: boolean, reason?: string): Promise<boolean> => {
    if (!route.runId) return false
    setError(undefined)
    try {
      await api(`/runs/${encodeURIComponent(route.runId)}/approve`, { body: { callId, approved, ...(reason ? { reason } : {}) } })
      void reloadDetail()
      return true
    } catch (failure) {
      fail((failure as Error).message)
      if (isConflict(failure)) void reloadDetail()
      return false
    }
  }

  /** Shows a run started elsewhere than the page's session (a replay, a retry): its session, then its run. */
  const openStarted = (started: StartedRun) => {
    setReplayFrom(undefined)
    setRoute(started.runId ? { sessionId: started.sessionId, runId: started.runId } : { sessionId: started.sessionId })
    setRefresh((value) => value + 1)
  }

  const retry = async () => {
    if (!route.runId) return
    setError(undefined)
    try {
      openStarted(await api<StartedRun>(`/runs/${encodeURIComponent(route.runId)}/retry`, { body: { model } }))
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
  // A run awaiting approval, or interrupted, keeps its session too: a message sent then waits until it is resumed or
  // cancelled.
  const busy = status === 'running' || status === 'queued' || status === 'suspended' || status === 'interrupted' || gateBusy

  return (
    <div className="app">
      <header className="topbar">
        <div className="brand">
          <span className="logo" /> Spindle <span className="subtle">playground</span>
        </div>
        <label className="model-picker">
          Model
          <select
            value={model}
            onChange={(event) => {
              setModel(event.target.value)
              localStorage.setItem('spindle.model', event.target.value)
            }}
            aria-label="Model"
          >
            {config?.models.map((option) => (
              <option key={option.id} value={option.id}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        {pickedModel?.demo && (
          <span className="badge demo" data-testid="demo-label" title="The demo model answers from a script: no API key, no network">
            no API key needed
          </span>
        )}
        <span className="badge subtle">stores: {config?.store ?? '…'}</span>
        <DebuggerLauncher runId={route.runId} sessionId={route.sessionId} events={events} onOpenRun={(sessionId, runId) => setRoute({ sessionId, runId })} />
      </header>
      {error && (
        <div className="error-banner" role="alert">
          <span>{error}</span>
          <button onClick={() => setError(undefined)} aria-label="Dismiss">
            ×
          </button>
        </div>
      )}
      <div className="columns">
        <Sidebar
          sessionId={route.sessionId}
          runId={route.runId}
          refresh={refresh}
          onSession={(sessionId) => setRoute({ sessionId })}
          onRun={(sessionId, runId) => setRoute({ sessionId, runId })}
          onError={fail}
        />
        <Chat
          banner={forkOrigin && <ForkBanner origin={forkOrigin} onCompare={() => setComparing(true)} onOpen={(sessionId) => setRoute({ sessionId })} />}
          entries={entries}
          runs={runs}
          runId={route.runId}
          runStatus={status}
          events={events}
          busy={busy}
          queued={queue.queued}
          onWithdraw={withdraw}
          maxChars={messageChars}
          onSend={send}
        />
        <RunPanel
          detail={shown}
          events={events}
          connected={connected}
          model={selectedModel}
          onAction={act}
          onDecision={decide}
          onFork={fork}
          onEditReplay={setReplayFrom}
          onRetry={retry}
          onError={fail}
          reachable={reachable}
        />
        {replayFrom !== undefined && route.runId && config && (
          <ReplayEditor
            runId={route.runId}
            version={replayFrom}
            models={config.models}
            model={detail?.run.model ?? model}
            onClose={() => setReplayFrom(undefined)}
            onStarted={openStarted}
          />
        )}
        {comparing && route.sessionId && <ForkDiff sessionId={route.sessionId} onClose={() => setComparing(false)} onError={fail} />}
      </div>
    </div>
  )
}

function isConflict(failure: unknown): boolean {
  return failure instanceof ApiFailure && failure.status === 409
}
