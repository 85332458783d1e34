// End to end in a real headless Chromium: forks, messages queued behind a busy run, a rejected message,
// Back out of a session, and cancelling a run that waits for approval.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missingBrowserReason } from './browser.js'
import { newSession, openPlaygroundPage, routeSessionId, send, sessionRuns, type PlaygroundPage } from './playground-page.js'

const skipReason = missingBrowserReason()
const suite = skipReason ? describe.skip : describe

let opened: PlaygroundPage | undefined
let page: Page

const runStatus = () => page.locator('[data-testid=run-status]')
const composer = () => page.getByLabel('Message')
const moral = 'The moral: write it down first.'
const chatTexts = () => page.locator('.messages .bubble, .messages .status, .messages .tool-chip summary').allInnerTexts()

async function sessionCount(): Promise<number> {
  return page.evaluate(async () => (await (await fetch('/api/sessions?limit=500')).json()).sessions.length)
}

suite(skipReason ? `playground session flows (skipped: ${skipReason})` : 'playground session flows in headless Chromium', () => {
  beforeAll(async () => {
    opened = await openPlaygroundPage({ chunkDelayMs: 12 })
    page = opened.page
  }, 60_000)

  afterAll(() => opened?.close())

  it('a fork shows the copied conversation: its first message, and tool calls that finished as done', async () => {
    await newSession(page)
    await send(page, 'What is 2 + 3?')
    await page.locator('[data-testid=assistant]', { hasText: '2 + 3 = 5' }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    const source = page.url()

    // v0 is saved before the first model call: the fork holds the user's message only.
    await page.getByRole('button', { name: /^snapshots/ }).click()
    await page.getByRole('button', { name: 'Fork from this step' }).first().click()
    await page.waitForFunction((url) => location.href !== url, source)
    // Polled: right after the URL changes, the source session's messages may still be on screen.
    await expect.poll(chatTexts, { timeout: 5000 }).toEqual(['What is 2 + 3?'])

    // v1 is saved after the calculator step: the call and its result are one finished chip.
    await page.goBack()
    await page.waitForFunction((url) => location.href === url, source)
    await page.getByRole('button', { name: /^snapshots/ }).click()
    await page.getByRole('button', { name: 'Fork from this step' }).nth(1).click()
    await page.waitForFunction((url) => location.href !== url, source)
    // The fork has the question and the finished call, not the answer that came after (the source has it).
    await expect.poll(chatTexts, { timeout: 5000 }).toEqual(['What is 2 + 3?', expect.stringMatching(/^calculator\b[\s\S]*done/)])
    expect(await page.locator('[data-testid=tool-chip] .tool-status').allInnerTexts()).toEqual([expect.stringMatching(/^done/)])

    // Continuing the fork keeps the copied part as it was.
    await send(page, 'What is 2 ^ 10?')
    await page.locator('[data-testid=assistant]', { hasText: '2 ^ 10 = 1024' }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    expect(await page.locator('.messages .bubble.user').allInnerTexts()).toEqual(['What is 2 + 3?', 'What is 2 ^ 10?'])
    expect(await page.locator('[data-testid=tool-chip] .tool-status').allInnerTexts()).toEqual([expect.stringMatching(/^done/), expect.stringMatching(/^done/)])
  })

  it('a fork from a run awaiting approval shows the waiting call as not run, and continues', async () => {
    await newSession(page)
    await send(page, 'delete README.md')
    await page.getByTestId('approval').waitFor()
    const source = page.url()
    await page.getByRole('button', { name: /^snapshots/ }).click()
    await page.getByRole('button', { name: 'Fork from this step' }).last().click()
    await page.waitForFunction((url) => location.href !== url, source)
    await expect.poll(chatTexts, { timeout: 5000 }).toEqual(['delete README.md', expect.stringMatching(/^delete_file\b[\s\S]*not run/)])
    await send(page, 'What is 3 + 4?')
    await page.locator('[data-testid=assistant]', { hasText: '3 + 4 = 7' }).waitFor()
    expect(await page.locator('[data-testid=tool-chip] .tool-status').allInnerTexts()).toEqual(['not run', expect.stringMatching(/^done/)])
  })

  it('switching sessions while the first one loads shows the second one only', async () => {
    await newSession(page)
    await send(page, 'What is 40 + 1?')
    await page.locator('[data-testid=assistant]', { hasText: '40 + 1 = 41' }).waitFor()
    const first = routeSessionId(page)!
    await newSession(page)
    await send(page, 'What is 40 + 2?')
    await page.locator('[data-testid=assistant]', { hasText: '40 + 2 = 42' }).waitFor()
    const second = routeSessionId(page)!
    // The first session's messages answer slowly: the page has moved to the second one by then.
    let delayed = 0
    await page.route(`**/api/sessions/${first}/messages`, async (route) => {
      delayed++
      await new Promise((resolve) => setTimeout(resolve, 800))
      await route.continue()
    })
    await page.locator('[data-testid=sessions-list] li', { hasText: 'What is 40 + 1?' }).click()
    await page.waitForTimeout(150)
    await page.locator('[data-testid=sessions-list] li', { hasText: 'What is 40 + 2?' }).click()
    await page.waitForTimeout(1500)
    await page.unrouteAll({ behavior: 'wait' })
    expect(delayed).toBeGreaterThan(0)
    expect(routeSessionId(page)).toBe(second)
    expect(await page.locator('.messages .bubble.user').allInnerTexts()).toEqual(['What is 40 + 2?'])
    expect(await page.locator('[data-testid=assistant]').allInnerTexts()).toEqual(['40 + 2 = 42'])
  })

  it('messages queued behind a busy run each get their answer, and the page follows them to the last one', async () => {
    await newSession(page)
    await send(page, 'Tell me a long story')
    await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 10)
    // Two slow answers (about a second each), so that the page sees each queued run while it streams.
    for (const text of ['Hello there', 'Tell me another long story']) {
      await composer().fill(text)
      await composer().press('Enter')
      await page.waitForFunction(() => (document.querySelector('textarea[aria-label=Message]') as HTMLTextAreaElement).value === '', undefined, {
        timeout: 5000,
      })
    }
    await page.locator('.status', { hasText: 'Queued' }).waitFor({ timeout: 5000 })

    await page.waitForFunction(
      (moral) =>
        document.querySelectorAll('[data-testid=assistant]').length === 3 &&
        document.querySelectorAll('[data-testid=assistant]')[2]!.textContent!.endsWith(moral),
      moral,
      { timeout: 15_000 },
    )
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await page.getByTestId('gate-state').filter({ hasText: 'gate: idle' }).waitFor({ timeout: 5000 })
    const sessionId = routeSessionId(page)!
    const runs = await sessionRuns(page, sessionId)
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed', 'completed'])
    const last = runs.find((run) => JSON.stringify(run.input).includes('another long story'))!
    expect(page.url()).toContain(`/r/${last.id}`)
    // Polled: the page joined the last run mid-stream, so its bubble holds the deltas seen since, until the run's
    // messages are read again (once the run has ended).
    const story = /^Once upon a time[\s\S]*write it down first\.$/
    await expect
      .poll(() => page.locator('[data-testid=assistant]').allInnerTexts(), { timeout: 5000 })
      .toEqual([expect.stringMatching(story), expect.stringMatching(/^Hello! I am the demo model/), expect.stringMatching(story)])
    expect(await page.locator('.messages .bubble.user').allInnerTexts()).toEqual(['Tell me a long story', 'Hello there', 'Tell me another long story'])
    expect(await page.locator('.status', { hasText: 'Queued' }).count()).toBe(0)
    // The sidebar counts every entry of the session: a user message and an answer per run.
    await page.locator('[data-testid=sessions-list] li.selected', { hasText: '6 entries' }).waitFor({ timeout: 5000 })
  })

  it('a queued message still shows, marked queued, after a reload; it then runs and is shown as sent', async () => {
    await newSession(page)
    const first = await send(page, 'delete README.md')
    await page.getByTestId('approval').waitFor()
    // The run waits for a decision: a message sent now waits in the session's queue.
    await composer().fill('What is 7 + 8?')
    await composer().press('Enter')
    await page.locator('.bubble.user.queued', { hasText: 'What is 7 + 8?' }).waitFor({ timeout: 5000 })
    await page.reload()
    await page.getByTestId('approval').waitFor()
    // Still there, marked queued, after the run's own messages.
    await page.locator('.bubble.user.queued', { hasText: 'What is 7 + 8?' }).waitFor({ timeout: 5000 })
    expect(await page.locator('.messages .status', { hasText: 'Queued' }).innerText()).toBe(
      'Queued: the session is busy; this message runs once the current run’s pending approval is decided.',
    )
    expect(await page.locator('.messages .bubble.user').allInnerTexts()).toEqual(['delete README.md', 'What is 7 + 8?'])
    expect(page.url()).toContain(`/r/${first}`)

    await page.getByRole('button', { name: 'Deny' }).click()
    // It ran: the page follows its run, and its bubble is an ordinary one (sent, no longer queued), with its answer.
    await page.waitForFunction((first) => /\/r\/run_/.test(location.hash) && !location.hash.includes(first), first, { timeout: 10_000 })
    await page.locator('[data-testid=assistant]', { hasText: '7 + 8 = 15' }).waitFor({ timeout: 10_000 })
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await expect.poll(() => page.locator('.messages .bubble.user').allInnerTexts(), { timeout: 5000 }).toEqual(['delete README.md', 'What is 7 + 8?'])
    expect(await page.locator('.bubble.queued').count()).toBe(0)
    expect(await page.locator('.messages .status', { hasText: 'Queued' }).count()).toBe(0)
    const runs = await sessionRuns(page, routeSessionId(page)!)
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed'])
  })

  it('a queued message can be withdrawn from its bubble: it disappears, and never runs', async () => {
    await newSession(page)
    const first = await send(page, 'delete README.md')
    await page.getByTestId('approval').waitFor()
    for (const text of ['What is 1 + 1?', 'What is 2 + 3?']) {
      await composer().fill(text)
      await composer().press('Enter')
      await page.locator('.bubble.user.queued', { hasText: text }).waitFor({ timeout: 5000 })
    }
    await page.locator('.queued-message', { hasText: 'What is 1 + 1?' }).getByRole('button', { name: 'Withdraw' }).click()
    await expect.poll(() => page.locator('.bubble.user.queued').allInnerTexts(), { timeout: 5000 }).toEqual(['What is 2 + 3?'])
    // Gone on the server too: a reload does not bring it back.
    await page.reload()
    await page.getByTestId('approval').waitFor()
    await page.locator('.bubble.user.queued', { hasText: 'What is 2 + 3?' }).waitFor({ timeout: 5000 })
    expect(await page.locator('.bubble.user.queued').allInnerTexts()).toEqual(['What is 2 + 3?'])

    await page.getByRole('button', { name: 'Deny' }).click()
    await page.waitForFunction((first) => /\/r\/run_/.test(location.hash) && !location.hash.includes(first), first, { timeout: 10_000 })
    await page.locator('[data-testid=assistant]', { hasText: '2 + 3 = 5' }).waitFor({ timeout: 10_000 })
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await expect.poll(() => page.locator('.messages .bubble.user').allInnerTexts(), { timeout: 5000 }).toEqual(['delete README.md', 'What is 2 + 3?'])
    const runs = await sessionRuns(page, routeSessionId(page)!)
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed'])
  })

  it('an earlier run that was cancelled still says so once the conversation goes on', async () => {
    await newSession(page)
    await send(page, 'Tell me a long story')
    await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 10)
    await page.getByRole('button', { name: 'Cancel' }).click()
    await runStatus().filter({ hasText: 'cancelled' }).waitFor()
    await send(page, 'What is 1 + 1?')
    await page.locator('[data-testid=assistant]', { hasText: '1 + 1 = 2' }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    // The cancelled run is shown from its persisted messages now: its question is not left as if never answered.
    await expect
      .poll(chatTexts, { timeout: 5000 })
      .toEqual(['Tell me a long story', 'Run ended: cancelled', 'What is 1 + 1?', expect.stringMatching(/^calculator\b[\s\S]*done/), '1 + 1 = 2'])
    // Reloaded, the same.
    await page.reload()
    await page.locator('[data-testid=assistant]', { hasText: '1 + 1 = 2' }).waitFor()
    await expect
      .poll(chatTexts, { timeout: 5000 })
      .toEqual(['Tell me a long story', 'Run ended: cancelled', 'What is 1 + 1?', expect.stringMatching(/^calculator\b[\s\S]*done/), '1 + 1 = 2'])
  })

  it('a denied call shows as denied, not as a tool error, live and in the history', async () => {
    await newSession(page)
    await send(page, 'delete todo.txt')
    await page.getByTestId('approval').waitFor()
    await page.locator('.approval input').fill('not now')
    await page.getByRole('button', { name: 'Deny' }).click()
    await page.locator('[data-testid=assistant]', { hasText: 'The user denied this call: not now' }).waitFor({ timeout: 5000 })
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    expect(await page.locator('[data-testid=tool-chip] .tool-status').allInnerTexts()).toEqual([expect.stringMatching(/^denied/)])
    expect(await page.locator('[data-testid=tool-chip].tool-denied').count()).toBe(1)
    await page.getByRole('button', { name: /^timeline/ }).click()
    expect(await page.getByTestId('timeline-tool').innerText()).toContain('approval · denied')
    // Once another run is shown, the call comes from the session's messages: still denied.
    await send(page, 'What is 2 + 2?')
    await page.locator('[data-testid=assistant]', { hasText: '2 + 2 = 4' }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await expect
      .poll(() => page.locator('[data-testid=tool-chip] .tool-status').allInnerTexts(), { timeout: 5000 })
      .toEqual(['denied', expect.stringMatching(/^done/)])
  })

  it('scrolled up while an answer streams, the reader stays where they are; sending brings them back to the end', async () => {
    await page.setViewportSize({ width: 1440, height: 520 })
    try {
      await newSession(page)
      for (const [question, answer] of [
        ['What is 1 + 1?', '1 + 1 = 2'],
        ['What is 2 + 2?', '2 + 2 = 4'],
        ['What is 3 + 3?', '3 + 3 = 6'],
        ['What is 4 + 4?', '4 + 4 = 8'],
      ]) {
        await send(page, question!)
        await page.locator('[data-testid=assistant]', { hasText: answer! }).waitFor()
        await runStatus().filter({ hasText: 'completed' }).waitFor()
      }
      await send(page, 'Tell me a long story')
      const messages = page.getByTestId('messages')
      const scroll = () =>
        messages.evaluate((element) => ({ top: element.scrollTop, bottomGap: element.scrollHeight - element.scrollTop - element.clientHeight }))
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=assistant]')].some((item) => item.textContent!.startsWith('Once upon')))
      expect((await scroll()).bottomGap).toBeLessThan(48)
      await messages.evaluate((element) => {
        element.scrollTop = 0
      })
      // The story keeps streaming for about a second: the reader is left at the top.
      await page.waitForTimeout(500)
      expect(await runStatus().innerText()).toBe('running')
      expect((await scroll()).top).toBe(0)
      await runStatus().filter({ hasText: 'completed' }).waitFor()
      expect((await scroll()).top).toBe(0)
      await send(page, 'What is 5 + 5?')
      await page.locator('[data-testid=assistant]', { hasText: '5 + 5 = 10' }).waitFor()
      await expect.poll(async () => (await scroll()).bottomGap, { timeout: 3000 }).toBeLessThan(48)
    } finally {
      await page.setViewportSize({ width: 1440, height: 860 })
    }
  })

  it('a message the playground refuses keeps its text and creates no session', async () => {
    await newSession(page)
    const before = await sessionCount()
    const tooLong = 'z'.repeat(20_001)
    await composer().fill(tooLong)
    await composer().press('Enter')
    const alert = page.getByRole('alert')
    await alert.waitFor({ timeout: 5000 })
    expect(await composer().inputValue()).toHaveLength(20_001)
    expect(await sessionCount()).toBe(before)
    expect(routeSessionId(page)).toBeUndefined()
    expect(await alert.innerText()).toContain('the limit is 20,000')
    expect(await page.getByTestId('char-counter').innerText()).toBe('20,001 / 20,000')
    await alert.getByRole('button', { name: 'Dismiss' }).click()

    // A refusal from the server (here: a new session's first message) keeps the text too.
    await page.route('**/api/messages', (route) =>
      route.fulfill({
        status: 400,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'admission_rejected', message: 'refused by a test' } }),
      }),
    )
    await page.route('**/api/sessions', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 400,
            contentType: 'application/json',
            body: JSON.stringify({ error: { code: 'admission_rejected', message: 'refused by a test' } }),
          })
        : route.fallback(),
    )
    await composer().fill('What is 1 + 1?')
    await composer().press('Enter')
    await alert.filter({ hasText: 'refused by a test' }).waitFor({ timeout: 5000 })
    expect(await composer().inputValue()).toBe('What is 1 + 1?')
    expect(await sessionCount()).toBe(before)
    await page.unrouteAll()
    await alert.getByRole('button', { name: 'Dismiss' }).click()
    await composer().fill('')
  })

  it('Back leaves a session: opening a session replaces its address with its latest run instead of adding one', async () => {
    await newSession(page)
    await send(page, 'What is 1 + 2?')
    await page.locator('[data-testid=assistant]', { hasText: '1 + 2 = 3' }).waitFor()
    const first = page.url()
    await newSession(page)
    await send(page, 'What is 2 + 2?')
    await page.locator('[data-testid=assistant]', { hasText: '2 + 2 = 4' }).waitFor()
    const second = page.url()
    await page.locator('[data-testid=sessions-list] li', { hasText: 'What is 1 + 2?' }).click()
    await page.waitForFunction((url) => location.href === url, first)
    await page.goBack()
    await page.waitForFunction((url) => location.href === url, second, { timeout: 3000 })
    await page.locator('[data-testid=assistant]', { hasText: '2 + 2 = 4' }).waitFor()
    // It stays there: no redirect pushes the other session back.
    await page.waitForTimeout(500)
    expect(page.url()).toBe(second)
  })

  it('cancelling a run that waits for approval shows the call as cancelled, not run, and no resume', async () => {
    await newSession(page)
    await send(page, 'delete README.md')
    await page.getByTestId('approval').waitFor()
    await page.getByRole('button', { name: 'Cancel' }).click()
    await runStatus().filter({ hasText: 'cancelled' }).waitFor()
    await page.locator('.messages .status', { hasText: 'Run ended: cancelled' }).waitFor({ timeout: 5000 })
    expect(await page.locator('[data-testid=tool-chip] .tool-status').allInnerTexts()).toEqual(['cancelled · not run'])
    expect(await page.locator('.messages .status').allInnerTexts()).toEqual(['Waited for approval', 'Run ended: cancelled'])
    expect(await page.getByTestId('approval').count()).toBe(0)
    // The run panel's timeline tells the same: no resume, the call not run.
    await page.getByRole('button', { name: /^timeline/ }).click()
    const timeline = page.getByTestId('timeline')
    await timeline.getByText('finished: cancelled').waitFor()
    expect(await timeline.innerText()).not.toContain('resumed')
    expect(await page.getByTestId('timeline-tool').innerText()).toContain('approval · cancelled · not run')
  })
})
