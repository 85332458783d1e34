// Renders the benchmark plots of the Benchmarks page as SVG from bench/results/latest.json (written by `pnpm bench`):
// per-step cost vs N (Spindle against the bare loop and the peers) and vs prior history (the durable stores).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from './entry-points.mjs'

const colors = ['#3451b2', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2', '#be185d', '#4b5563', '#65a30d']

/** A log-log line chart, one line per series: `{ label, points: [[x, y], ...] }`. */
export function lineChartSvg({ title, xLabel, yLabel, series }) {
  const width = 720, height = 420, left = 70, right = 230, top = 40, bottom = 50
  const xs = series.flatMap((s) => s.points.map((p) => p[0]))
  const ys = series.flatMap((s) => s.points.map((p) => p[1]))
  const log = (v) => Math.log10(v)
  const [x0, x1] = [log(Math.min(...xs)), log(Math.max(...xs))]
  const [y0, y1] = [Math.floor(log(Math.min(...ys))), Math.ceil(log(Math.max(...ys)))]
  const px = (x) => left + ((log(x) - x0) / (x1 - x0 || 1)) * (width - left - right)
  const py = (y) => height - bottom - ((log(y) - y0) / (y1 - y0 || 1)) * (height - top - bottom)
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12" role="img" aria-label="${escape(title)}">`, `<rect width="${width}" height="${height}" fill="#fff"/>`, `<text x="${left}" y="22" font-size="14" font-weight="bold">${escape(title)}</text>`]
  for (let e = y0; e <= y1; e++) {
    const y = py(10 ** e)
    parts.push(`<line x1="${left}" x2="${width - right}" y1="${y}" y2="${y}" stroke="#e5e7eb"/>`, `<text x="${left - 6}" y="${y + 4}" text-anchor="end">${format(10 ** e)}</text>`)
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    parts.push(`<line x1="${px(x)}" x2="${px(x)}" y1="${top}" y2="${height - bottom}" stroke="#f3f4f6"/>`, `<text x="${px(x)}" y="${height - bottom + 16}" text-anchor="middle">${format(x)}</text>`)
  }
  parts.push(`<text x="${(left + width - right) / 2}" y="${height - 12}" text-anchor="middle">${escape(xLabel)}</text>`, `<text transform="translate(16 ${(top + height - bottom) / 2}) rotate(-90)" text-anchor="middle">${escape(yLabel)}</text>`)
  series.forEach((s, i) => {
    const color = colors[i % colors.length]
    const points = [...s.points].sort((a, b) => a[0] - b[0])
    const bold = s.label.startsWith('spindle')
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="${bold ? 3 : 1.5}" points="${points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`)
    for (const [x, y] of points) parts.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${color}"/>`)
    const ly = top + 10 + i * 18
    parts.push(`<line x1="${width - right + 12}" x2="${width - right + 32}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="${bold ? 3 : 1.5}"/>`, `<text x="${width - right + 38}" y="${ly + 4}">${escape(s.label)}</text>`)
  })
  parts.push('</svg>')
  return `${parts.join('\n')}\n`
}

function escape(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

function format(value) {
  return value >= 1000 ? value.toLocaleString('en-US') : String(Number(value.toPrecision(3)))
}

function seriesOf(rows, suite, caseName, metric) {
  const bySeries = new Map()
  for (const row of rows) {
    if (row.suite !== suite || row.case !== caseName || row.metric !== metric) continue
    if (!bySeries.has(row.variant)) bySeries.set(row.variant, [])
    bySeries.get(row.variant).push([row.n, row.median])
  }
  return [...bySeries].map(([label, points]) => ({ label, points }))
}

/** Writes the plots into `outDir` and returns their file names. */
export function writeBenchPlots(outDir, resultsFile = join(repoRoot, 'bench/results/latest.json')) {
  const rows = JSON.parse(readFileSync(resultsFile, 'utf8'))
  mkdirSync(outDir, { recursive: true })
  const plots = {
    'kernel-per-step.svg': { title: 'Per-step wall time vs steps per run (in-memory, medians)', xLabel: 'steps per run (N)', yLabel: 'µs per step (log)', series: seriesOf(rows, 'kernel', 'in-memory, one tool call per step', 'wall per step') },
    'kernel-allocation.svg': { title: 'Allocated per step vs steps per run (medians)', xLabel: 'steps per run (N)', yLabel: 'KB per step (log)', series: seriesOf(rows, 'kernel', 'in-memory, one tool call per step', 'allocated per step') },
    'durable-per-step.svg': { title: 'Per-step wall time vs prior history (10-step run, medians)', xLabel: 'messages already in the session', yLabel: 'µs per step (log)', series: seriesOf(rows, 'durable', '10-step run on a session with prior history', 'wall per step') },
    'context-build.svg': { title: 'Building one model request vs window size (medians)', xLabel: 'messages in the window', yLabel: 'µs per build (log)', series: seriesOf(rows, 'context', 'build one request from a window', 'wall per build') },
  }
  for (const [file, spec] of Object.entries(plots)) {
    if (spec.series.length === 0) throw new Error(`[spindle/docs] bench results have no rows for the plot ${file}: was the suite renamed?`)
    writeFileSync(join(outDir, file), lineChartSvg(spec))
  }
  return Object.keys(plots)
}
