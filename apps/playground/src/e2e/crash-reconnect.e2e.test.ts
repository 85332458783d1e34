// End to end in a real headless Chromium: the playground process is SIGKILLed while the page streams a run, and a new
// one starts on the same port and data folder. The page reconnects: it holds the new server's log and, above it, the
// numbers the dead process showed live (never renumbered); once the run is cancelled or resumed, exactly the log.
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error -- a plain .mjs script without type declarations
import { buildWebIfNeeded } from '../../scripts/start.mjs'
import { type ChildPlayground, startChildPlayground } from '../test-support/child-playground.js'
import { launchChromium, missingBrowserReason } from './browser.js'
import { send } from './playground-page.js'

const skipReason = missingBrowserReason()
const suite = skipReason ? describe.skip : describe
const cleanups: Array<() => unknown> = []
let browser: Browser | undefined

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

/** A playground child on `port`, killed (if still alive) after the test. */
async function serve(dataDir: string, port: number): Promise<ChildPlayground> {
  const server = await startChildPlayground({ dataDir, env: { PORT: String(port), SPINDLE_LEASE_MS: '2000', DEMO_CHUNK_DELAY_MS: '30' } })
  cleanups.push(() => server.child.kill('SIGKILL'))
  return server
}

async function pageEvents(page: Page): Promise<string[]> {
  await page.getByRole('button', { name: /^events/ }).click()
  return page
    .locator('[data-testid=event-log] li')
    .evaluateAll((items) => items.map((item) => `${item.getAttribute('data-seq')}:${item.querySelector('.type')?.textContent}`))
}

async function serverEvents(server: ChildPlayground, runId: string): Promise<string[]> {
  const { body } = await server.call('GET', `/api/runs/${runId}`)
  return body.events.map((event: { seq: number; type: string }) => `${event.seq}:${event.type}`)
}

const chat = (page: Page) => page.locator('.messages .bubble, .messages .status').allInnerTexts()
const runStatus = (page: Page) => page.locator('[data-testid=run-status]')

/** A playground server on a data folder of its own, and a page open on it with the demo model ready. */
async function storyStreaming(prefix: string) {
  const dataDir = mkdtempSync(join(tmpdir(), prefix))
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const started = await serve(dataDir, port)
  const context = await browser!.newContext({ viewport: { width: 1440, height: 860 } })
  cleanups.push(() => context.close())
  const page = await context.newPage()
  await page.goto(`${started.origin}/?token=${started.token}`)
  await page.getByTestId('demo-label').waitFor()
  return { dataDir, port, page, started }
}

suite(skipReason ? `playground crash e2e (skipped: ${skipReason})` : 'playground crash and restart in headless Chromium', () => {
  beforeAll(async () => {
    await buildWebIfNeeded()
    browser = await launchChromium()
  }, 60_000)
  afterAll(() => browser?.close())

  it.each(['Cancel', 'Resume'] as const)(
    'SIGKILL mid-stream, restart, then %s: the page never renumbers what it saw, and ends holding exactly the log',
    async (action) => {
      const { dataDir, port, page, started } = await storyStreaming('spindle-playground-e2e-crash-')
      let server = started
      const runId = await send(page, 'Tell me a long story')
      await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 120)

      server.child.kill('SIGKILL')
      expect((await server.exited).signal).toBe('SIGKILL')
      server = await serve(dataDir, port)
      await runStatus(page).filter({ hasText: 'interrupted' }).waitFor({ timeout: 15_000 })
      // Reconnected: the page holds the new server's log, then the numbers the dead process showed live above it
      // (never renumbered: until a resume declares them discarded, they keep the meaning they had).
      const logged = await serverEvents(server, runId)
      const lastLogged = Number(logged.at(-1)!.split(':')[0])
      await expect.poll(async () => (await pageEvents(page)).slice(0, logged.length), { timeout: 10_000 }).toEqual(logged)
      for (const seen of (await pageEvents(page)).slice(logged.length)) expect(Number(seen.split(':')[0])).toBeGreaterThan(lastLogged)
      await expect
        .poll(() => chat(page), { timeout: 5000 })
        .toContainEqual(
          expect.stringMatching(
            /^Run interrupted \(killed, or its server stopped\): the step in progress was discarded and will be redone on Resume; resume or cancel it/,
          ),
        )

      await page.getByRole('button', { name: action }).click()
      if (action === 'Cancel') {
        await runStatus(page).filter({ hasText: 'cancelled' }).waitFor({ timeout: 15_000 })
        await expect.poll(() => chat(page), { timeout: 5000 }).toContainEqual('Run ended: cancelled')
      } else {
        // While the resumed run streams, its answer is the story from its first word: no text of the dead process.
        const samples: string[] = []
        await page.locator('[data-testid=assistant]').waitFor({ timeout: 10_000 })
        while ((await runStatus(page).innerText()) === 'running' && samples.length < 20) {
          samples.push(await page.locator('[data-testid=assistant]').last().innerText())
          await page.waitForTimeout(150)
        }
        await runStatus(page).filter({ hasText: 'completed' }).waitFor({ timeout: 15_000 })
        const finished = (await server.call('GET', `/api/runs/${runId}`)).body.events.at(-1)
        expect(finished.text.match(/Once upon a time/g)).toHaveLength(1)
        for (const sample of samples) expect(finished.text.startsWith(sample), sample).toBe(true)
        await expect.poll(() => page.locator('[data-testid=assistant]').allInnerTexts(), { timeout: 5000 }).toEqual([finished.text])
      }
      await expect.poll(() => pageEvents(page), { timeout: 10_000 }).toEqual(await serverEvents(server, runId))
    },
    60_000,
  )

  it('a message queued when the server is SIGKILLed is still queued after the restart (and a reload), then runs', async () => {
    const { dataDir, port, page, started } = await storyStreaming('spindle-playground-e2e-crash-queue-')
    let server = started
    const runId = await send(page, 'Tell me a long story')
    await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 40)
    await page.getByLabel('Message').fill('What is 6 * 7?')
    await page.getByLabel('Message').press('Enter')
    const queued = page.locator('.bubble.user.queued', { hasText: 'What is 6 * 7?' })
    await queued.waitFor({ timeout: 5000 })

    server.child.kill('SIGKILL')
    expect((await server.exited).signal).toBe('SIGKILL')
    server = await serve(dataDir, port)
    await runStatus(page).filter({ hasText: 'interrupted' }).waitFor({ timeout: 15_000 })
    // The new server took the message back: the page keeps showing it queued, and reports nothing lost.
    await page.waitForTimeout(1500)
    expect(await queued.count()).toBe(1)
    expect(await page.getByRole('alert').allInnerTexts()).not.toContainEqual(expect.stringContaining('did not start'))
    await page.reload()
    await queued.waitFor({ timeout: 5000 })

    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.locator('[data-testid=assistant]', { hasText: '6 * 7 = 42' }).waitFor({ timeout: 15_000 })
    await runStatus(page).filter({ hasText: 'completed' }).waitFor({ timeout: 10_000 })
    expect(page.url()).not.toContain(runId)
    expect(await page.locator('.bubble.queued').count()).toBe(0)
    expect(await page.locator('.messages .bubble.user').allInnerTexts()).toEqual(['Tell me a long story', 'What is 6 * 7?'])
    const runs = (await server.call('GET', `/api/runs?limit=10`)).body.runs
    expect(runs.map((run: { status: string }) => run.status)).toEqual(['completed', 'cancelled'])
  }, 60_000)
})
