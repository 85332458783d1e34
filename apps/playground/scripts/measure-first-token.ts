// Measures, once, a page load and the first streamed token with the demo model in headless Chromium
// (the same code as the bench's `playground` suite: src/measure/first-token.ts).
// Run: pnpm --filter @spindle/playground exec node --conditions=@spindle/source --import tsx scripts/measure-first-token.ts
import { firstTokenUnavailableReason, measureFirstToken } from '../src/measure/first-token.js'

const unavailable = firstTokenUnavailableReason()
if (unavailable) throw new Error(`[spindle/playground] cannot measure: ${unavailable}`)
const results = await measureFirstToken({ rounds: 5 })
const fmt = (value: number) => `${value.toFixed(0)} ms`
for (const [index, result] of results.entries()) {
  console.log(
    `round ${index + 1}${index === 0 ? ' (cold)' : ''}: page load ${fmt(result.load)}, first token ${fmt(result.firstToken)}, together ${fmt(result.total)}`,
  )
}
const sorted = results.map((result) => result.total).sort((a, b) => a - b)
console.log(`median together: ${fmt(sorted[Math.floor(sorted.length / 2)]!)} (demo model's first chunk waits 15 ms by design)`)
