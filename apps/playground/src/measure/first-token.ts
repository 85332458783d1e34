// Page load + first streamed token with the demo model in headless Chromium: shared by
// scripts/measure-first-token.ts and the bench's `playground` suite (`@spindle/playground/measure-first-token`).
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromiumPath, launchChromium } from '../e2e/browser.js'
import { appRoot } from '../server/config.js'
import { startPlayground } from '../server/create-playground.js'

// Browser-side conditions are passed as expressions: this module is compiled without the DOM library.

export interface FirstTokenRound {
  /** Navigation until the UI shows the demo label, ms. */
  load: number
  /** Enter pressed until the first assistant text is painted, ms. */
  firstToken: number
  /** load + firstToken, ms. */
  total: number
}

export interface MeasureFirstTokenOptions {
  /** Rounds on one page (the first is cold). Default 5. */
  rounds?: number
  /** The demo model's delay per streamed chunk, ms (its first chunk waits this long by design). Default 15. */
  chunkDelayMs?: number
}

export const webDir = join(appRoot, 'dist', 'web')

/** Why the measurement cannot run here (no Chromium, web UI not built), or undefined when it can. */
export function firstTokenUnavailableReason(): string | undefined {
  if (!existsSync(chromiumPath)) return `${chromiumPath} is missing (install it with: apt-get install -y chromium)`
  if (!existsSync(join(webDir, 'index.html'))) return 'the web UI is not built (run: pnpm --filter @spindle/playground build:web)'
  return undefined
}

/**
 * Starts the playground (SQLite in a temp folder, demo model) and, per round, loads the page and sends a message,
 * timing the load and the first streamed token; each round waits for its run to complete (and throws if it does not).
 */
export async function measureFirstToken(options: MeasureFirstTokenOptions = {}): Promise<FirstTokenRound[]> {
  const rounds = options.rounds ?? 5
  const dataDir = mkdtempSync(join(tmpdir(), 'spindle-measure-'))
  const playground = await startPlayground({ host: '127.0.0.1', port: 0, dataDir, webDir, demo: { chunkDelayMs: options.chunkDelayMs ?? 15 } })
  const browser = await launchChromium()
  try {
    const page = await browser.newPage()
    await page.goto(playground.url) // sets the cookie
    const results: FirstTokenRound[] = []
    for (let round = 0; round < rounds; round++) {
      await page.goto('about:blank')
      const started = performance.now()
      await page.goto(`http://127.0.0.1:${playground.port}/`)
      await page.getByTestId('demo-label').waitFor()
      const loaded = performance.now()
      await page.getByLabel('Message').fill('Tell me a long story')
      const sent = performance.now()
      await page.getByLabel('Message').press('Enter')
      await page.waitForFunction(`(document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 0`, undefined, { polling: 'raf' })
      const token = performance.now()
      results.push({ load: loaded - started, firstToken: token - sent, total: loaded - started + (token - sent) })
      await page.waitForFunction(`document.querySelector('[data-testid=run-status]')?.textContent === 'completed'`, undefined, { timeout: 30_000 })
      const answer = await page.locator('[data-testid=assistant]').last().innerText()
      if (!answer.trim()) throw new Error(`[spindle/playground] round ${round + 1}: the run completed with an empty answer`)
    }
    return results
  } finally {
    await browser.close()
    await playground.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
