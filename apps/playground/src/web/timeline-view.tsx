// The run's timeline: its steps (model call, tools) and marks (resumes, compactions, the end) in time order, each
// step's bar on the run's time axis. While the run goes on, the axis ends now, so a running step's bar grows.
import { useEffect, useState } from 'react'
import type { timeline, TimelineStep, TimelineTool } from './derive'
import { cost, duration, json, shortJson, tokens } from './format'
import type { ModelOption } from './types'

type Row = { kind: 'step'; at: number; step: TimelineStep } | { kind: 'mark'; at: number; label: string; tone: string }

/** The current time, every `ms` while `ticking` (a running run's axis ends now). */
function useNow(ticking: boolean, ms = 250): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!ticking) return
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), ms)
    return () => clearInterval(timer)
  }, [ticking, ms])
  return now
}

export function TimelineView(props: {
  view: ReturnType<typeof timeline>
  model?: ModelOption
  /** The run is going on (its status says so): the axis ends now. */
  live: boolean
  /** The run was killed (or its server stopped): a step left unfinished was discarded, and is redone on Resume. */
  interrupted: boolean
}) {
  const { view } = props
  const now = useNow(props.live && !view.finished)
  const start = view.startedAt ?? 0
  const lastAt = Math.max(start, ...view.steps.map((step) => step.at + (step.durationMs ?? 0)))
  const end = view.finished?.at ?? (props.live ? Math.max(now, lastAt) : lastAt)
  const span = Math.max(1, end - start)
  // Steps and marks together, in the order they happened (a step by when it first started).
  const rows: Row[] = [
    ...view.steps.map((step) => ({ kind: 'step' as const, at: step.firstAt, step })),
    ...view.marks.map((mark) => ({ kind: 'mark' as const, at: mark.at, label: mark.label, tone: mark.tone })),
  ].sort((a, b) => a.at - b.at)
  return (
    <div className="timeline" data-testid="timeline">
      {rows.map((row, index) =>
        row.kind === 'mark' ? (
          <div key={`m${index}`} className={`mark ${row.tone}`}>
            +{duration(row.at - start)} · {row.label}
          </div>
        ) : (
          <StepRow
            key={`s${row.step.step}`}
            step={row.step}
            model={props.model}
            start={start}
            span={span}
            end={end}
            discarded={props.interrupted && isUnfinished(row.step)}
          />
        ),
      )}
      {view.finished && (
        <div className={`mark ${view.finished.tone === 'ok' ? 'done' : view.finished.tone}`}>
          +{duration(view.finished.at - start)} · {view.finished.tone === 'error' ? view.finished.reason : `finished: ${view.finished.reason}`}
        </div>
      )}
      {!view.steps.length && <div className="empty">No steps yet.</div>}
    </div>
  )
}

function isUnfinished(step: TimelineStep): boolean {
  return step.finishReason === undefined && step.outcome === undefined
}

function StepRow(props: { step: TimelineStep; model?: ModelOption; start: number; span: number; end: number; discarded: boolean }) {
  const { step } = props
  const running = isUnfinished(step) && !props.discarded
  const state = props.discarded ? 'discarded by the kill · redone on Resume' : (step.finishReason ?? step.outcome ?? 'streaming…')
  const width = ((step.durationMs ?? Math.max(0, props.end - step.at)) / props.span) * 100
  return (
    <div className={`step ${step.outcome ? `step-${step.outcome}` : ''} ${props.discarded ? 'step-discarded' : ''}`}>
      <div className="step-head">
        <span className="step-name">Step {step.step} · model call</span>
        <span className="step-state">{state}</span>
        <span>{running || props.discarded ? '' : duration(step.durationMs)}</span>
        <span>{step.delta ? tokens(step.delta) : ''}</span>
        <span>{step.delta ? cost(step.delta, props.model) : ''}</span>
      </div>
      <div className="bar-track">
        <div
          className={`bar ${step.outcome === 'failed' ? 'failed' : ''}`}
          style={{ left: `${((step.at - props.start) / props.span) * 100}%`, width: `${Math.min(100, Math.max(0.5, width))}%` }}
        />
      </div>
      {step.textChars > 0 && (
        <div className="step-text">
          {step.textChars} characters of text{props.discarded ? ' (discarded)' : ''}
        </div>
      )}
      {step.tools.map((tool) => (
        <ToolRow key={tool.callId} tool={tool} />
      ))}
    </div>
  )
}

function toolState(tool: TimelineTool): string {
  if (tool.denied) return 'denied'
  if (tool.error) return 'error'
  if (tool.result !== undefined) return tool.reused ? 'reused' : 'ok'
  return tool.notRun === 'cancelled' ? 'cancelled · not run' : (tool.notRun ?? 'pending')
}

function ToolRow(props: { tool: TimelineTool }) {
  const { tool } = props
  // A denied call never ran: it has no duration to show.
  const ran = !tool.denied && (tool.result !== undefined || tool.error !== undefined)
  return (
    <details className="tool-row" data-testid="timeline-tool">
      <summary>
        <span className="tool-name">{tool.toolName}</span>
        <span className="args">{shortJson(tool.args, 48)}</span>
        <span>
          {tool.approval ? 'approval · ' : ''}
          {toolState(tool)}
        </span>
        <span>{ran ? duration(tool.durationMs) : ''}</span>
      </summary>
      <div className="kv">Arguments</div>
      <pre>{json(tool.args)}</pre>
      {tool.result !== undefined && (
        <>
          <div className="kv">Result</div>
          <pre>{json(tool.result)}</pre>
        </>
      )}
      {tool.error && (
        <>
          <div className="kv">{tool.denied ? 'Denied' : 'Error'}</div>
          <pre className="error">{tool.error}</pre>
        </>
      )}
    </details>
  )
}
