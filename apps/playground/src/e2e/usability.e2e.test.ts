// End to end in a real headless Chromium: the sidebar and approvals from the keyboard alone, right-to-left messages, a
// link cut short, and what the page says when the server does not answer.
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missingBrowserReason } from './browser.js'
import { newSession, openPlaygroundPage, routeSessionId, send, type PlaygroundPage } from './playground-page.js'

const skipReason = missingBrowserReason()
const suite = skipReason ? describe.skip : describe

let opened: PlaygroundPage | undefined
let page: Page

const runStatus = () => page.locator('[data-testid=run-status]')
/** The focused element's tag and text, to tell where Tab went. */
const focused = () =>
  page.evaluate(
    `(() => { const element = document.activeElement; return element ? element.tagName + ' ' + (element.textContent ?? '') : '' })()`,
  ) as Promise<string>

/** The CSS direction the element is laid out in: `rtl` or `ltr`. */
const direction = (locator: Locator) => locator.evaluate((element) => (globalThis as any).getComputedStyle(element).direction as string)

/** Presses Tab until the focused element's text includes `text` (at most `limit` times); false if it never does. */
async function tabTo(text: string, limit = 6): Promise<boolean> {
  for (let index = 0; index < limit; index++) {
    await page.keyboard.press('Tab')
    if ((await focused()).includes(text)) return true
  }
  return false
}

suite(skipReason ? `playground usability (skipped: ${skipReason})` : 'playground usability in headless Chromium', () => {
  beforeAll(async () => {
    opened = await openPlaygroundPage({ chunkDelayMs: 2 })
    page = opened.page
  }, 60_000)

  afterAll(() => opened?.close())

  it('the sessions and runs lists work from the keyboard: Tab reaches each item, Enter or Space opens it', async () => {
    await newSession(page)
    await send(page, 'What is 4 + 4?')
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    const first = routeSessionId(page)!
    await newSession(page)
    const secondRun = await send(page, 'What is 5 + 5?')
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    expect(routeSessionId(page)).not.toBe(first)

    await page.locator('[data-testid=sessions-list] li', { hasText: 'What is 4 + 4?' }).waitFor()
    await page.getByRole('button', { name: '+ New session' }).focus()
    expect(await tabTo('What is 4 + 4?')).toBe(true)
    expect(await focused()).toMatch(/^BUTTON /)
    await page.keyboard.press('Enter')
    await page.waitForFunction(`location.hash.includes(${JSON.stringify(encodeURIComponent(first))})`)
    await page.locator('[data-testid=assistant]', { hasText: '4 + 4 = 8' }).waitFor()

    await page.getByRole('button', { name: 'Runs' }).click()
    await page.locator('[data-testid=runs-list] li', { hasText: 'What is 5 + 5?' }).waitFor()
    await page.getByLabel('Search runs').focus()
    expect(await tabTo('What is 5 + 5?')).toBe(true)
    await page.keyboard.press('Space')
    await page.waitForFunction(`location.hash.includes(${JSON.stringify(encodeURIComponent(secondRun))})`)
    await page.locator('[data-testid=assistant]', { hasText: '5 + 5 = 10' }).waitFor()
    await page.getByRole('button', { name: 'Sessions' }).click()
  })

  it('a decision taken from the keyboard leaves the focus in the composer, ready for the next message', async () => {
    await newSession(page)
    await send(page, 'delete todo.txt')
    const approval = page.getByTestId('approval')
    await approval.getByPlaceholder('Reason (optional, sent to the model)').focus()
    expect(await tabTo('Approve', 1)).toBe(true)
    await page.keyboard.press('Enter')
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await approval.waitFor({ state: 'detached' })
    expect(await page.evaluate(`document.activeElement?.getAttribute('aria-label')`)).toBe('Message')
    // Typing goes on at once.
    await page.keyboard.type('What is 7 + 7?')
    await page.keyboard.press('Enter')
    await page.locator('[data-testid=assistant]', { hasText: '7 + 7 = 14' }).waitFor()
  })

  it('a right-to-left message reads right to left (its punctuation at its end), in the composer and in the chat', async () => {
    await newSession(page)
    const arabic = 'مرحبا! كيف حالك؟'
    await page.getByLabel('Message').fill(arabic)
    expect(await direction(page.getByLabel('Message'))).toBe('rtl')
    await page.getByLabel('Message').press('Enter')
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    const bubble = page.locator('.messages .bubble.user', { hasText: arabic })
    expect(await direction(bubble)).toBe('rtl')
    // The demo's answer is English: left to right, in the same conversation.
    expect(await direction(page.locator('[data-testid=assistant]').last())).toBe('ltr')
    await page.locator('[data-testid=sessions-list] li', { hasText: arabic }).waitFor()
    expect(await direction(page.locator('[data-testid=sessions-list] .title', { hasText: arabic }))).toBe('rtl')
  })

  it('a link cut short (not valid percent-encoding) opens the start page, not a blank one, and throws nothing', async () => {
    const fresh = await page.context().newPage()
    const errors: string[] = []
    fresh.on('pageerror', (error) => errors.push(error.message))
    try {
      await fresh.goto(`${opened!.playground.origin}/#/s/ses_%E0%A4%A`)
      await fresh.getByTestId('demo-label').waitFor({ timeout: 5000 })
      await fresh.getByRole('button', { name: '+ New session' }).waitFor()
      // The same from a link followed inside the page (a hash change, read on popstate).
      await fresh.evaluate(`location.hash = '#/s/ses_1/r/run_%'`)
      await fresh.getByText('Talk to an agent, then look inside the run.').waitFor()
      expect(errors).toEqual([])
    } finally {
      await fresh.close()
    }
  })

  it('a server that does not answer is named as such (not "Failed to fetch") until it answers again, and the message typed is kept', async () => {
    await newSession(page)
    // The browser's answer when the server is stopped: the connection is refused.
    await page.route('**/api/**', (route) => route.abort('connectionrefused'))
    try {
      await page.getByLabel('Message').fill('What is 6 + 6?')
      await page.getByLabel('Message').press('Enter')
      const banner = page.getByRole('alert')
      await banner.waitFor()
      expect(await banner.innerText()).toContain('The playground server is not reachable')
      expect(await banner.innerText()).not.toContain('Failed to fetch')
      expect(await page.getByLabel('Message').inputValue()).toBe('What is 6 + 6?')
    } finally {
      await page.unroute('**/api/**')
    }
    // Once it answers again (here to the sidebar's next load), the message is taken back; the same text goes through.
    await page.getByRole('button', { name: 'Runs' }).click()
    await page.getByRole('alert').waitFor({ state: 'detached', timeout: 5000 })
    await page.getByRole('button', { name: 'Sessions' }).click()
    await send(page, 'What is 6 + 6?')
    await page.locator('[data-testid=assistant]', { hasText: '6 + 6 = 12' }).waitFor()
    expect(await page.getByRole('alert').count()).toBe(0)
  })
})
