// Shared by the e2e suites: a playground on a temp SQLite file, Debian's Chromium, and one signed-in page.
// Browser-side code is passed as expressions: this module is compiled without the DOM library.
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
// @ts-expect-error -- a plain .mjs script without type declarations
import { buildWebIfNeeded } from '../../scripts/start.mjs'
import type { PlaygroundConfig } from '../server/config.js'
import { appRoot } from '../server/config.js'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'
import { launchChromium } from './browser.js'

export interface PlaygroundPage {
  playground: TestPlayground
  browser: Browser
  page: Page
  close(): Promise<void>
}

/**
 * Builds the web UI when needed, starts a playground and opens it (the token becomes the cookie). `config` adds to the
 * playground's configuration (another model, say); `viewport` is the window's size (1440×860 by default).
 */
export async function openPlaygroundPage(options: {
  chunkDelayMs: number
  config?: Partial<PlaygroundConfig>
  viewport?: { width: number; height: number }
}): Promise<PlaygroundPage> {
  await buildWebIfNeeded()
  const playground = await startTestPlayground({ ...options.config, demo: { chunkDelayMs: options.chunkDelayMs } })
  const browser = await launchChromium()
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1440, height: 860 } })
  const page = await context.newPage()
  await page.goto(playground.url)
  await page.getByTestId('demo-label').waitFor()
  return {
    playground,
    browser,
    page,
    async close() {
      await browser.close()
      await playground.stop()
    },
  }
}

export async function newSession(page: Page): Promise<void> {
  await page.getByRole('button', { name: '+ New session' }).click()
  await page.waitForFunction(`!location.hash.includes('/s/')`)
}

/** Sends a message and returns the id of the run it started (the page shows it). */
export async function send(page: Page, text: string): Promise<string> {
  const before = new URL(page.url()).hash
  await page.getByLabel('Message').fill(text)
  await page.getByLabel('Message').press('Enter')
  await page.waitForFunction(`/\\/r\\/run_/.test(location.hash) && location.hash !== ${JSON.stringify(before)}`)
  return decodeURIComponent(page.url().split('/r/')[1]!)
}

/** The ids and inputs of a session's runs, newest first. */
export async function sessionRuns(page: Page, sessionId: string): Promise<Array<{ id: string; status: string; input: unknown }>> {
  return page.evaluate(`fetch('/api/sessions/${encodeURIComponent(sessionId)}/runs').then((response) => response.json()).then((body) => body.runs)`)
}

export function routeSessionId(page: Page): string | undefined {
  const match = new URL(page.url()).hash.match(/^#\/s\/([^/]+)/)
  return match ? decodeURIComponent(match[1]!) : undefined
}

/** Where this run's screenshots go: a temp folder, and with UPDATE_SCREENSHOTS=1 also the playground's screenshots/ folder (its README's). */
const shots = mkdtempSync(join(tmpdir(), 'spindle-shots-'))

/** Saves a screenshot of the page as `<name>.png` (see `shots`); returns the temp file's path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const file = join(shots, `${name}.png`)
  await page.screenshot({ path: file })
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    const target = join(appRoot, 'screenshots')
    mkdirSync(target, { recursive: true })
    copyFileSync(file, join(target, `${name}.png`))
  }
  return file
}
