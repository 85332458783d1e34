// Suite — playground: a page load and the first streamed token with the demo model in headless Chromium
// (Debian's /usr/bin/chromium through playwright-core), with the playground's own measurement code.
import { firstTokenUnavailableReason, measureFirstToken } from '@spindle/playground/measure-first-token'
import { type BenchConfig, cell, check, type Report } from '../harness.js'

const title = 'Playground: page load + first streamed token, demo model, headless Chromium (ms; median (min–max) of warm rounds)'
const header = ['measure', 'rounds', 'cold (first round)', 'warm median (min–max)']

export async function playgroundSuite(config: BenchConfig, report: Report): Promise<void> {
  const unavailable = firstTokenUnavailableReason()
  if (unavailable) {
    report.table(title, header, [['page load + first token', 0, `skipped: ${unavailable}`, '—']])
    return
  }
  // One cold round, then warm rounds on the same page (the UI is cached, as for a user reloading it).
  const rounds = config.quick ? 3 : 11
  const results = await measureFirstToken({ rounds })
  check(results.length === rounds, `${results.length} rounds measured, expected ${rounds}`)
  const [cold, ...warm] = results
  const lines: Array<Array<string | number>> = []
  for (const [metric, key] of [
    ['page load', 'load'],
    ['first token (Enter → first text painted)', 'firstToken'],
    ['page load + first token', 'total'],
  ] as const) {
    const values = warm.map((round) => round[key])
    check(
      values.every((value) => value > 0),
      `${metric}: every round measured`,
    )
    const row = report.add({ suite: 'playground', case: 'demo model, headless Chromium', variant: 'warm', n: warm.length, metric, unit: 'ms' }, values)
    report.add({ suite: 'playground', case: 'demo model, headless Chromium', variant: 'cold', n: 1, metric, unit: 'ms' }, cold![key])
    lines.push([metric, warm.length, cold![key], cell(row)])
  }
  report.table(
    title,
    header,
    lines,
    'The playground server (SQLite stores in a temp folder, the demo model streaming one chunk per 15 ms by design) and the built web UI; each round navigates to the app, waits for the UI, sends a message and waits for the first assistant text to be painted, then for the run to complete. Target: page load + first token < 300 ms.',
  )
}
