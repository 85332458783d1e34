// Measures, once, a page load and the first streamed token with the demo model in headless Chromium.
// Run: pnpm --filter @spindle/playground exec node --conditions=@spindle/source --import tsx scripts/measure-first-token.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { launchChromium } from '../src/e2e/browser.js'
import { appRoot } from '../src/server/config.js'
import { startPlayground } from '../src/server/create-playground.js'

const dataDir = mkdtempSync(join(tmpdir(), 'spindle-measure-'))
const playground = await startPlayground({ host: '127.0.0.1', port: 0, dataDir, webDir: join(appRoot, 'dist', 'web'), demo: { chunkDelayMs: 15 } })
const browser = await launchChromium()
try {
  const page = await browser.newPage()
  await page.goto(playground.url) // sets the cookie
  const results: Array<{ load: number; firstToken: number; total: number }> = []
  for (let round = 0; round < 5; round++) {
    await page.goto('about:blank')
    const started = performance.now()
    await page.goto(`http://127.0.0.1:${playground.port}/`)
    await page.getByTestId('demo-label').waitFor()
    const loaded = performance.now()
    await page.getByLabel('Message').fill('Tell me a long story')
    const sent = performance.now()
    await page.getByLabel('Message').press('Enter')
    await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 0, undefined, { polling: 'raf' })
    const token = performance.now()
    results.push({ load: loaded - started, firstToken: token - sent, total: loaded - started + (token - sent) })
    await page.waitForFunction(() => document.querySelector('[data-testid=run-status]')?.textContent === 'completed')
  }
  const fmt = (value: number) => `${value.toFixed(0)} ms`
  for (const [index, result] of results.entries()) {
    console.log(`round ${index + 1}${index === 0 ? ' (cold)' : ''}: page load ${fmt(result.load)}, first token ${fmt(result.firstToken)}, together ${fmt(result.total)}`)
  }
  const sorted = results.map((result) => result.total).sort((a, b) => a - b)
  console.log(`median together: ${fmt(sorted[Math.floor(sorted.length / 2)]!)} (demo model's first chunk waits 15 ms by design)`)
} finally {
  await browser.close()
  await playground.close()
  rmSync(dataDir, { recursive: true, force: true })
}
