// End to end in a real headless Chromium: the display defects of issue 40 (a failed run, a kill, small windows, the
// timeline's order and running bar, the gate badge, and the smaller ones), each shown as a user sees it.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missingBrowserReason } from './browser.js'
import { newSession, openPlaygroundPage, screenshot, send, type PlaygroundPage } from './playground-page.js'

const skipReason = missingBrowserReason()
const suite = skipReason ? describe.skip : describe

let opened: PlaygroundPage | undefined
let page: Page

const runStatus = () => page.locator('[data-testid=run-status]')
const demoModel = 'demo:scripted'
/** A model whose server refuses every connection (port 9, "discard"): each of its runs fails. */
const unreachableModel = 'compatible:nowhere'

async function pickModel(id: string): Promise<void> {
  await page.getByLabel('Model').selectOption(id)
}

/** The texts of the timeline's rows (steps and marks), top to bottom. */
async function timelineRows(): Promise<string[]> {
  await page.getByRole('button', { name: /^timeline/ }).click()
  return page.locator('[data-testid=timeline] > .step .step-name, [data-testid=timeline] > .mark').allInnerTexts()
}

suite(skipReason ? `playground display defects (skipped: ${skipReason})` : 'playground display defects in headless Chromium', () => {
  beforeAll(async () => {
    opened = await openPlaygroundPage({
      chunkDelayMs: 12,
      viewport: { width: 1440, height: 900 },
      config: { openai: { baseURL: 'http://127.0.0.1:9/v1', model: 'nowhere' } },
    })
    page = opened.page
  }, 180_000)

  afterAll(() => opened?.close())

  it('1. a failed run: its step says it failed (not "streaming…" forever), and its end is marked as an error, not a success', async () => {
    await newSession(page)
    await pickModel(unreachableModel)
    try {
      await send(page, 'hello')
      await runStatus().filter({ hasText: 'failed' }).waitFor({ timeout: 15_000 })
      const timeline = page.getByTestId('timeline')
      await timeline.locator('.mark', { hasText: 'failed' }).waitFor()
      expect(await timeline.innerText()).not.toContain('streaming…')
      expect(await timeline.locator('.step-head').first().innerText()).toMatch(/failed/)
      // The step's time is the time until it failed, not "—".
      expect(await timeline.locator('.step-head').first().innerText()).not.toContain('—')
      expect(await timeline.locator('.mark.done').count()).toBe(0)
      expect(await timeline.locator('.mark.error').count()).toBeGreaterThan(0)
    } finally {
      await pickModel(demoModel)
    }
  }, 60_000)

  it('2. a kill keeps the partial answer on screen and says the step in progress was discarded and is redone on Resume', async () => {
    await newSession(page)
    await send(page, 'Tell me a long story')
    await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 40)
    const eventsTab = page.getByRole('button', { name: /^events/ })
    const shown = () => eventsTab.textContent().then((text) => Number(text!.match(/\((\d+)\)/)![1]))
    const before = await shown()
    expect(before).toBeGreaterThan(5)
    await page.getByRole('button', { name: 'Kill' }).click()
    await runStatus().filter({ hasText: 'interrupted' }).waitFor()
    // The events shown live stay shown (not only the 2 the log kept) until the resume redoes the step.
    expect(await shown()).toBeGreaterThanOrEqual(before)
    // Still there, and marked as discarded.
    const partial = page.locator('[data-testid=assistant]', { hasText: 'Once upon a time' })
    await partial.waitFor({ timeout: 5000 })
    await page.locator('.messages .status', { hasText: 'Run interrupted' }).waitFor()
    const status = await page.locator('.messages .status', { hasText: 'Run interrupted' }).innerText()
    expect(status).toMatch(/step in progress was discarded/)
    expect(status).toMatch(/redone on Resume/)
    expect(await page.getByTestId('timeline').innerText()).not.toContain('No steps yet.')
    expect(await page.getByTestId('timeline').innerText()).toMatch(/discarded/)
    await page.getByRole('button', { name: 'Resume' }).click()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await page.locator('[data-testid=assistant]', { hasText: 'The moral: write it down first.' }).waitFor()
    expect((await page.locator('[data-testid=assistant]').allInnerTexts()).join('\n').match(/Once upon a time/g)).toHaveLength(1)
    expect(await page.getByTestId('timeline').innerText()).not.toMatch(/discarded/)
  }, 60_000)

  it('3. the first screen and every panel stay usable at 1024×768 and 1440×900', async () => {
    await newSession(page)
    for (const size of [
      { width: 1024, height: 768 },
      { width: 1440, height: 900 },
    ]) {
      await page.setViewportSize(size)
      await newSession(page)
      await screenshot(page, `first-screen-${size.width}x${size.height}`)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width)
      await send(page, 'write sizes.txt with "fits"')
      await page.getByTestId('approval').waitFor()
      // The chat keeps most of the window's height, beside the run panel (not under it).
      const messages = (await page.getByTestId('messages').boundingBox())!
      const panel = (await page.getByTestId('run-panel').boundingBox())!
      expect(messages.height).toBeGreaterThan(size.height * 0.6)
      expect(panel.x).toBeGreaterThanOrEqual(messages.x + messages.width - 1)
      expect(panel.y + panel.height).toBeLessThanOrEqual(size.height + 1)
      // Its header on one line each: the top bar, and the run's title (id, status, gate).
      expect((await page.locator('header.topbar').boundingBox())!.height).toBeLessThan(60)
      expect((await page.locator('.run-title').boundingBox())!.height).toBeLessThan(34)
      await screenshot(page, `approval-${size.width}x${size.height}`)
      await page.getByTestId('approval').getByRole('button', { name: 'Approve' }).click()
      await runStatus().filter({ hasText: 'completed' }).waitFor()
      for (const tab of ['timeline', 'events', 'snapshots', 'journal']) {
        await page.getByRole('button', { name: new RegExp(`^${tab}`) }).click()
        const body = (await page.locator('.tab-body').boundingBox())!
        expect(body.height, `${tab} at ${size.width}×${size.height}`).toBeGreaterThan(250)
        expect(body.y + body.height).toBeLessThanOrEqual(size.height + 1)
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width)
      }
      await page.getByRole('button', { name: /^timeline/ }).click()
      await screenshot(page, `run-panel-${size.width}x${size.height}`)
    }
  }, 90_000)

  it("4. the timeline is in time order (a resume between its steps), and a running step's bar grows with it", async () => {
    await newSession(page)
    await send(page, 'write order.txt with "in order"')
    await page.getByTestId('approval').getByRole('button', { name: 'Approve' }).click()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await expect
      .poll(timelineRows, { timeout: 5000 })
      .toEqual([
        expect.stringMatching(/^Step 1/),
        expect.stringMatching(/resumed from step 1/),
        expect.stringMatching(/^Step 2/),
        expect.stringMatching(/finished: stop/),
      ])

    await newSession(page)
    await send(page, 'Tell me a long story')
    await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 60)
    // The only step runs from near the run's start until now: its bar fills most of its track.
    const fill = () =>
      page
        .locator('[data-testid=timeline] .bar')
        .first()
        .evaluate((bar) => (bar as any).getBoundingClientRect().width / (bar as any).parentElement.getBoundingClientRect().width)
    expect(await runStatus().innerText()).toBe('running')
    expect(await fill()).toBeGreaterThan(0.5)
    await runStatus().filter({ hasText: 'completed' }).waitFor()
  }, 60_000)

  it('5. the gate badge does not say "idle" while the session is busy (approval pending, a message queued)', async () => {
    await newSession(page)
    await send(page, 'delete todo.txt')
    await page.getByTestId('approval').waitFor()
    await page.getByLabel('Message').fill('What is 1 + 1?')
    await page.getByLabel('Message').press('Enter')
    await page.locator('.messages .status', { hasText: 'the session is busy' }).waitFor()
    await page.getByTestId('gate-state').filter({ hasText: '1 queued' }).waitFor({ timeout: 5000 })
    const badge = await page.getByTestId('gate-state').innerText()
    expect(badge).not.toContain('idle')
    expect(badge).toContain('awaiting approval')
    await page.getByTestId('approval').getByRole('button', { name: 'Deny' }).click()
    await page.locator('[data-testid=assistant]', { hasText: '1 + 1 = 2' }).waitFor({ timeout: 10_000 })
  }, 60_000)

  describe('6. the smaller ones', () => {
    it('a denied call shows "denied" without a duration, and an expanded tool chip labels its arguments and result', async () => {
      await newSession(page)
      await send(page, 'delete todo.txt')
      await page.getByTestId('approval').getByRole('button', { name: 'Deny' }).click()
      await runStatus().filter({ hasText: 'completed' }).waitFor()
      const chip = page.locator('[data-testid=tool-chip]').first()
      await chip.locator('.tool-status', { hasText: 'denied' }).waitFor()
      expect(await chip.locator('.tool-status').innerText()).toBe('denied')
      expect(await page.locator('[data-testid=timeline-tool] summary').first().innerText()).not.toMatch(/ms|—/)

      await send(page, 'What is 6 * 7?')
      await page.locator('[data-testid=assistant]', { hasText: '6 * 7 = 42' }).waitFor()
      const done = page.locator('[data-testid=tool-chip]').last()
      await done.locator('summary').click()
      expect(await done.locator('.kv').allTextContents()).toEqual(['Arguments', 'Result'])
    })

    it('the demo price says it is illustrative on the page, not only in a tooltip', async () => {
      await newSession(page)
      await send(page, 'What is 2 + 2?')
      await runStatus().filter({ hasText: 'completed' }).waitFor()
      expect(await page.locator('.run-stats').innerText()).toContain('illustrative price')
    })

    it('while the server does not answer, Cancel and Kill are disabled', async () => {
      await newSession(page)
      await send(page, 'Tell me a long story')
      await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 10)
      await page.route('**/api/**', (route) => route.abort('connectionrefused'))
      try {
        await page.getByRole('button', { name: 'Kill' }).and(page.locator(':disabled')).waitFor({ timeout: 5000 })
        expect(await page.getByRole('button', { name: 'Cancel' }).isDisabled()).toBe(true)
      } finally {
        await page.unroute('**/api/**')
      }
      await runStatus().filter({ hasText: 'completed' }).waitFor({ timeout: 10_000 })
    }, 60_000)

    it('the sessions list flags a session whose run awaits approval, and one whose run is interrupted', async () => {
      await newSession(page)
      await send(page, 'delete README.md')
      await page.getByTestId('approval').waitFor()
      await page
        .locator('[data-testid=sessions-list] li', { hasText: 'delete README.md' })
        .locator('.badge', { hasText: 'awaiting approval' })
        .waitFor({ timeout: 5000 })
      await page.getByRole('button', { name: 'Cancel' }).click()
      await runStatus().filter({ hasText: 'cancelled' }).waitFor()

      await newSession(page)
      await send(page, 'Tell me a long story, once more')
      await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 10)
      await page.getByRole('button', { name: 'Kill' }).click()
      await runStatus().filter({ hasText: 'interrupted' }).waitFor()
      await page.locator('[data-testid=sessions-list] li', { hasText: 'once more' }).locator('.badge', { hasText: 'interrupted' }).waitFor({ timeout: 5000 })
      await page.getByRole('button', { name: 'Cancel' }).click()
      await runStatus().filter({ hasText: 'cancelled' }).waitFor()
      await page
        .locator('[data-testid=sessions-list] li', { hasText: 'once more' })
        .locator('.badge', { hasText: 'interrupted' })
        .waitFor({ state: 'detached', timeout: 5000 })
    }, 60_000)

    it('the header names the demo model once', async () => {
      const phrase = 'Demo model — scripted, offline'
      const count = await page.evaluate((text) => {
        const header = document.querySelector('header.topbar')!
        const select = header.querySelector('select') as { selectedOptions: Array<{ text: string }> } | null
        const shown = [...header.querySelectorAll('*')].filter(
          (element) =>
            !['OPTION', 'SELECT'].includes(element.tagName) && [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent!.includes(text)),
        )
        return shown.length + (select?.selectedOptions[0]?.text.includes(text) ? 1 : 0)
      }, phrase)
      expect(count).toBe(1)
    })
  })
})
