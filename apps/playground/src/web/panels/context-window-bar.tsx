// The context window as a picture: one stacked bar of what the request is made of, against the model's limit
// (the room kept for the answer hatched at the end).
import type { ContextPart, ModelCallView } from './debugger-types'

const colors: Record<ContextPart['kind'], string> = {
  system: '#4f46e5',
  memory: '#0e7490',
  summary: '#b45309',
  history: '#12b76a',
  'tool-results': '#d946ef',
  'tool-schemas': '#94a3b8',
}

export function ContextWindowBar(props: { composition: ModelCallView['composition'] }) {
  const { parts, total, limit, outputReserve } = props.composition
  const width = 600
  const scale = (tokens: number) => (limit ? (tokens / limit) * width : 0)
  let left = 0
  const share = limit ? (total / limit) * 100 : 0
  return (
    <div className="context-window" data-testid="context-window">
      <svg
        viewBox={`0 0 ${width} 26`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Context window: ${total.toLocaleString()} of ${limit.toLocaleString()} tokens`}
      >
        <defs>
          <pattern id="reserve-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="3" height="6" fill="#fde68a" />
          </pattern>
        </defs>
        <rect x={0} y={0} width={width} height={26} fill="#f0f1f6" />
        {parts.map((part) => {
          const x = left
          const w = Math.max(part.tokens ? 1 : 0, scale(part.tokens))
          left += w
          return (
            <rect key={part.kind} x={x} y={0} width={w} height={26} fill={colors[part.kind]} data-part={part.kind}>
              <title>{`${part.label}: ${part.tokens.toLocaleString()} tokens`}</title>
            </rect>
          )
        })}
        {outputReserve > 0 && (
          <rect x={Math.max(0, width - scale(outputReserve))} y={0} width={scale(outputReserve)} height={26} fill="url(#reserve-hatch)">
            <title>{`Kept for the answer: ${outputReserve.toLocaleString()} tokens`}</title>
          </rect>
        )}
      </svg>
      <div className="context-caption">
        <strong>{total.toLocaleString()}</strong> of {limit.toLocaleString()} tokens ({share < 1 ? share.toFixed(2) : share.toFixed(1)} %) ·{' '}
        {outputReserve.toLocaleString()} kept for the answer
      </div>
      <ul className="context-legend">
        {parts.map((part) => (
          <li key={part.kind} data-part={part.kind}>
            <span className="swatch" style={{ background: colors[part.kind] }} /> {part.label} <span className="muted">{part.tokens.toLocaleString()}</span>
          </li>
        ))}
      </ul>
    </div>
  )
}
