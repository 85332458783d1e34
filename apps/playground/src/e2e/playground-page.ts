// Shared by the e2e suites: a playground on a temp SQLite file, Debian's Chromium, and one signed-in page.
// Browser-side code is passed as expressions: this module is compiled without the DOM library.
import type { Browser, Page } from 'playwright-core'
// @ts-expect-error -- a plain .mjs script without type declarations
import { buildWebIfNeeded } from '../../scripts/start.mjs'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'
import { launchChromium } from './browser.js'

export interface PlaygroundPage {
  playground: TestPlayground
  browser: Browser
  page: Page
  close(): Promise<void>
}

/** Builds the web UI when needed, starts a playground and opens it (the token becomes the cookie). */
export async function openPlaygroundPage(options: { chunkDelayMs: number }): Promise<PlaygroundPage> {
  await buildWebIfNeeded()
  const playground = await startTestPlayground({ demo: { chunkDelayMs: options.chunkDelayMs } })
  const browser = await launchChromium()
  const context = await browser.newContext({ viewport: { width: 1440, height: 860 } })
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
