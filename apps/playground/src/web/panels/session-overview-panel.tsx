// The session at a glance: tokens and cost over time, steps per run, tool latency, as small SVG plots.
import { duration } from '../format'
import type { SessionOverviewView } from './debugger-types'
import { BarChart, LineChart } from './svg-charts'
import { useApiData } from './use-api-data'

function cumulative(values: Array<{ x: number; y: number; label: string }>): Array<{ x: number; y: number; label: string }> {
  let sum = 0
  return values.map((value) => ({ ...value, y: (sum += value.y) }))
}

export function SessionOverviewPanel(props: { sessionId?: string; version: unknown }) {
  const path = props.sessionId ? `/sessions/${encodeURIComponent(props.sessionId)}/overview` : undefined
  const { data, error } = useApiData<SessionOverviewView>(path, props.version)
  if (!props.sessionId) return <p className="muted">Pick a session to see its overview.</p>
  if (error) return <p className="error-line">{error}</p>
  if (!data) return <p className="muted">Loading…</p>
  const { runs, tools, totals } = data
  const tokens = cumulative(runs.map((run, index) => ({ x: run.startedAt, y: run.inputTokens + run.outputTokens, label: `run ${index + 1}` })))
  const costs = cumulative(runs.map((run, index) => ({ x: run.startedAt, y: run.costUsd ?? 0, label: `run ${index + 1}` })))
  return (
    <div className="session-overview" data-testid="session-overview">
      <div className="totals" data-testid="overview-totals">
        <span>
          <strong>{totals.runs}</strong> runs
        </span>
        <span>
          <strong>{totals.steps}</strong> steps
        </span>
        <span>
          <strong>{(totals.inputTokens + totals.outputTokens).toLocaleString()}</strong> tokens ({totals.inputTokens.toLocaleString()} in ·{' '}
          {totals.outputTokens.toLocaleString()} out)
        </span>
        <span>
          <strong>{totals.costUsd === undefined ? 'n/a' : `$${totals.costUsd.toFixed(5)}`}</strong> cost
        </span>
      </div>
      <div className="charts">
        <LineChart
          testId="chart-tokens"
          title="Tokens over time (cumulative)"
          points={tokens.map((point) => ({ ...point, label: `${point.label}: ${point.y.toLocaleString()} tokens` }))}
          formatY={(value) => Math.round(value).toLocaleString()}
        />
        <LineChart
          testId="chart-cost"
          title="Cost over time (cumulative, US$)"
          points={costs.map((point) => ({ ...point, label: `${point.label}: $${point.y.toFixed(5)}` }))}
          formatY={(value) => `$${value.toFixed(value < 0.01 ? 5 : 3)}`}
        />
        <BarChart
          testId="chart-steps"
          title="Steps per run"
          bars={runs.map((run, index) => ({
            label: String(index + 1),
            value: run.steps,
            tone: run.status === 'failed' ? 'error' : 'ok',
            title: `run ${index + 1} (${run.status}): ${run.steps} steps`,
          }))}
          formatY={(value) => String(Math.round(value))}
        />
        <BarChart
          testId="chart-tools"
          title="Tool latency per call"
          bars={tools.map((tool) => ({
            label: tool.toolName,
            value: tool.durationMs,
            tone: tool.ok ? 'ok' : 'error',
            title: `${tool.toolName} (step ${tool.step}): ${duration(tool.durationMs)}`,
          }))}
          formatY={(value) => duration(value)}
        />
      </div>
    </div>
  )
}
