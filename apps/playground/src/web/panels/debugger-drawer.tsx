// The debugger: a full-window layer over the playground with one tab per tool (model calls, event log, agent tree,
// agents and tools, session overview). Opened from the header; Escape or "Close" returns to the chat.
import { useEffect, useState } from 'react'
import type { AgentEvent } from '../types'
import { AgentsPanel } from './agents-panel'
import { EventLogPanel } from './event-log-panel'
import { ModelCallsPanel } from './model-calls-panel'
import { RunTreePanel } from './run-tree-panel'
import { SessionOverviewPanel } from './session-overview-panel'

export type DebuggerTab = 'model' | 'events' | 'tree' | 'agents' | 'overview'

const tabs: Array<[DebuggerTab, string]> = [
  ['model', 'Model calls'],
  ['events', 'Event log'],
  ['tree', 'Agent tree'],
  ['agents', 'Agents & tools'],
  ['overview', 'Session overview'],
]

/** The header's "Debugger" button, and the layer it opens. */
export function DebuggerLauncher(props: { runId?: string; sessionId?: string; events: AgentEvent[]; onOpenRun(sessionId: string, runId: string): void }) {
  const [tab, setTab] = useState<DebuggerTab>()
  useEffect(() => {
    if (!tab) return
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && setTab(undefined)
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [tab])
  // A new step or the run's end refreshes what the panels loaded.
  const version = props.events.filter((event) => event.type === 'step.finished' || event.type === 'run.finished' || event.type === 'run.failed').length
  return (
    <>
      <button className="debugger-open" onClick={() => setTab('model')} aria-haspopup="dialog">
        Debugger
      </button>
      {tab && (
        <div className="debugger" role="dialog" aria-label="Debugger" data-testid="debugger">
          <div className="debugger-bar" role="tablist">
            <strong>Debugger</strong>
            {tabs.map(([id, label]) => (
              <button key={id} role="tab" aria-selected={tab === id} className={tab === id ? 'active' : ''} onClick={() => setTab(id)}>
                {label}
              </button>
            ))}
            <button className="debugger-close" onClick={() => setTab(undefined)} aria-label="Close the debugger">
              Close
            </button>
          </div>
          <div className="debugger-body">
            {tab === 'model' && <ModelCallsPanel runId={props.runId} version={version} />}
            {tab === 'events' && <EventLogPanel runId={props.runId} events={props.events} />}
            {tab === 'tree' && <RunTreePanel runId={props.runId} version={version} onOpenRun={props.onOpenRun} />}
            {tab === 'agents' && <AgentsPanel />}
            {tab === 'overview' && <SessionOverviewPanel sessionId={props.sessionId} version={`${props.runId ?? ''}:${version}`} />}
          </div>
        </div>
      )}
    </>
  )
}
