// Small SVG plots for the session overview: a line over time and labelled bars. No chart library.
import type { ReactNode } from 'react'

export interface Point {
  x: number
  y: number
  label?: string
}

const width = 320
const height = 120
const pad = { left: 54, right: 8, top: 8, bottom: 22 }
const innerWidth = width - pad.left - pad.right
const innerHeight = height - pad.top - pad.bottom

function scale(values: number[], size: number, from: number): (value: number) => number {
  const min = Math.min(...values)
  const max = Math.max(...values)
  const span = max - min || 1
  return (value) => from + ((value - min) / span) * size
}

/** The figure both charts share: caption, the x axis, the y axis' top (max) and 0 labels, and "No data yet." when empty. */
function ChartFrame(props: { title: string; testId: string | undefined; maxLabel: string; empty: boolean; children: ReactNode }) {
  return (
    <figure className="chart" data-testid={props.testId}>
      <figcaption>{props.title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={props.title}>
        <line className="axis" x1={pad.left} y1={pad.top + innerHeight} x2={width - pad.right} y2={pad.top + innerHeight} />
        <text className="tick" x={pad.left - 4} y={pad.top + 8} textAnchor="end">
          {props.maxLabel}
        </text>
        <text className="tick" x={pad.left - 4} y={pad.top + innerHeight} textAnchor="end">
          0
        </text>
        {props.children}
      </svg>
      {props.empty && <p className="muted">No data yet.</p>}
    </figure>
  )
}

/** A line (with dots) of `points` in x order; y starts at 0. */
export function LineChart(props: { title: string; points: Point[]; formatY(value: number): string; testId?: string }) {
  const { points } = props
  const maxY = Math.max(0, ...points.map((point) => point.y))
  const x =
    points.length > 1
      ? scale(
          points.map((point) => point.x),
          innerWidth,
          pad.left,
        )
      : () => pad.left + innerWidth / 2
  const y = (value: number) => pad.top + innerHeight - (maxY ? (value / maxY) * innerHeight : 0)
  const path = points.map((point, index) => `${index ? 'L' : 'M'}${x(point.x).toFixed(1)},${y(point.y).toFixed(1)}`).join(' ')
  return (
    <ChartFrame title={props.title} testId={props.testId} maxLabel={props.formatY(maxY)} empty={!points.length}>
      {points.length > 0 && <path className="line" d={path} />}
      {points.map((point, index) => (
        <circle key={index} className="dot-point" cx={x(point.x)} cy={y(point.y)} r={3}>
          <title>{point.label ?? props.formatY(point.y)}</title>
        </circle>
      ))}
    </ChartFrame>
  )
}

/** One bar per entry, labelled under it. */
export function BarChart(props: {
  title: string
  bars: Array<{ label: string; value: number; tone?: 'ok' | 'error'; title?: string }>
  formatY(value: number): string
  testId?: string
}) {
  const { bars } = props
  const maxY = Math.max(0, ...bars.map((bar) => bar.value))
  const slot = bars.length ? innerWidth / bars.length : innerWidth
  const barWidth = Math.max(2, Math.min(28, slot * 0.7))
  return (
    <ChartFrame title={props.title} testId={props.testId} maxLabel={props.formatY(maxY)} empty={!bars.length}>
      {bars.map((bar, index) => {
        const barHeight = maxY ? (bar.value / maxY) * innerHeight : 0
        const left = pad.left + slot * index + (slot - barWidth) / 2
        return (
          <g key={index} data-bar={bar.label}>
            <rect className={`bar-rect ${bar.tone ?? ''}`} x={left} y={pad.top + innerHeight - barHeight} width={barWidth} height={Math.max(barHeight, 1)}>
              <title>{bar.title ?? `${bar.label}: ${props.formatY(bar.value)}`}</title>
            </rect>
            {bars.length <= 12 && (
              <text className="tick" x={left + barWidth / 2} y={height - 6} textAnchor="middle">
                {bar.label}
              </text>
            )}
          </g>
        )
      })}
    </ChartFrame>
  )
}
