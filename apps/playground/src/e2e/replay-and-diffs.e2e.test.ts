// End to end in a real headless Chromium, as a user drives it: edit and replay from a snapshot (a message rewritten,
// a tool result replaced, the runtime state changed), retry a failed run, and the diffs (two snapshots; a fork beside
// its parent). The screenshots of the playground README are taken here.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missingBrowserReason } from './browser.js'
import { newSession, openPlaygroundPage, screenshot, send, type PlaygroundPage } from './playground-page.js'

const skipReason = missingBrowserReason()
const suite = skipReason ? describe.skip : describe

let opened: PlaygroundPage | undefined
let page: Page

const runStatus = () => page.locator('[data-testid=run-status]')
const editor = () => page.getByTestId('replay-editor')

async function openSnapshots(): Promise<void> {
  await page.getByRole('button', { name: /^snapshots/ }).click()
  await page.getByTestId('snapshots').waitFor()
}

/** Opens the replay editor at the snapshot of `index` (0 is the first) and waits for its fields. */
async function editAt(index: number): Promise<void> {
  await openSnapshots()
  await page.getByRole('button', { name: 'Edit & replay…' }).nth(index).click()
  await editor().getByLabel('Runtime state').waitFor()
}

/** Clicks Replay and waits for the new run (another session) to finish; returns its session's id. */
async function replay(): Promise<string> {
  const before = page.url()
  await editor().getByRole('button', { name: 'Replay from here' }).click()
  await page.waitForFunction((url) => location.href !== url && /\/r\/run_/.test(location.hash), before)
  await editor().waitFor({ state: 'detached' })
  await runStatus().filter({ hasText: 'completed' }).waitFor({ timeout: 10_000 })
  return decodeURIComponent(new URL(page.url()).hash.match(/^#\/s\/([^/]+)/)![1]!)
}

suite(skipReason ? `playground edit, replay and diffs (skipped: ${skipReason})` : 'playground edit, replay and diffs in headless Chromium', () => {
  beforeAll(async () => {
    opened = await openPlaygroundPage({
      chunkDelayMs: 4,
      viewport: { width: 1440, height: 900 },
      config: { openai: { baseURL: 'http://127.0.0.1:9/v1', model: 'nowhere' } },
    })
    page = opened.page
  }, 180_000)

  afterAll(() => opened?.close())

  it('7. rewrites the question at the first snapshot and replays: the new session answers the new question; the source is untouched', async () => {
    await newSession(page)
    await send(page, 'What is 2 + 3?')
    await page.locator('[data-testid=assistant]', { hasText: '2 + 3 = 5' }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    const source = page.url()
    await editAt(0)
    const question = editor().getByLabel(/^Message \d+ \(user\)$/)
    expect(await question.inputValue()).toBe('What is 2 + 3?')
    await question.fill('What is 2 + 5?')
    await replay()
    await page.locator('[data-testid=assistant]', { hasText: '2 + 5 = 7' }).waitFor()
    expect(await page.locator('.messages .bubble.user').allInnerTexts()).toEqual(['What is 2 + 5?'])
    expect(await page.getByTestId('fork-banner').innerText()).toContain('An edited replay of')
    await page.goto(source)
    await page.locator('[data-testid=assistant]', { hasText: '2 + 3 = 5' }).waitFor()
  }, 60_000)

  it('7. replaces a tool result after the tool step: the model answers from the new result, and the tool does not run again', async () => {
    await newSession(page)
    await send(page, 'What is 6 * 7?')
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await editAt(1)
    const result = editor().getByLabel(/^Result of calculator/)
    expect(JSON.parse(await result.inputValue())).toEqual({ expression: '6 * 7', value: 42 })
    await result.fill('{ "expression": "6 * 7", "value": 41 }')
    await screenshot(page, 'edit-and-replay')
    await replay()
    await page.locator('[data-testid=assistant]', { hasText: '6 * 7 = 41' }).waitFor()
    await page.getByRole('button', { name: /^journal/ }).click()
    expect(await page.getByRole('button', { name: /^journal/ }).textContent()).toBe('journal (0)')
  }, 60_000)

  it('7. changes the runtime state (what the tools read from their RuntimeStore) and replays: the tool sees the new state', async () => {
    await newSession(page)
    await send(page, 'Show the runtime state')
    await page.locator('[data-testid=assistant]', { hasText: '"plan":"free"' }).waitFor()
    await editAt(0)
    await editor().getByLabel('Runtime state').fill('{ "user": { "name": "Ada", "plan": "pro" }, "locale": "en-GB" }')
    await replay()
    await page.locator('[data-testid=assistant]', { hasText: 'The runtime state holds: user = {"name":"Ada","plan":"pro"}, locale = "en-GB".' }).waitFor()

    // 9. The replay beside its parent: the runtime state's change, and the conversations aligned.
    await page.getByTestId('fork-banner').getByRole('button', { name: 'Compare with parent' }).click()
    const diff = page.getByTestId('fork-diff')
    await diff.locator('.fork-row').nth(1).waitFor()
    expect(await diff.getByTestId('runtime-state-diff').innerText()).toMatch(/user\.plan\s+"free"\s+→\s+"pro"/)
    expect(await diff.locator('.fork-row[data-kind]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind')))).toEqual([
      'same',
      'same',
      'edited',
      'edited',
    ])
    expect(await diff.locator('.fork-row.row-edited').last().innerText()).toContain('"plan":"pro"')
    await screenshot(page, 'fork-diff')
    await diff.getByRole('button', { name: 'Close' }).click()
    await diff.waitFor({ state: 'detached' })
  }, 60_000)

  it('7. retries a failed run with another model: a new run from its last good snapshot, which completes', async () => {
    await newSession(page)
    await page.getByLabel('Model').selectOption('compatible:nowhere')
    try {
      await send(page, 'What is 9 * 9?')
      await runStatus().filter({ hasText: 'failed' }).waitFor({ timeout: 15_000 })
      const retry = page.getByRole('button', { name: 'Retry' })
      expect(await retry.isEnabled()).toBe(true)
      expect(await page.getByRole('button', { name: 'Resume' }).isDisabled()).toBe(true)
      await screenshot(page, 'retry-failed-run')
    } finally {
      await page.getByLabel('Model').selectOption('demo:scripted')
    }
    const failed = page.url()
    await page.getByRole('button', { name: 'Retry' }).click()
    await page.waitForFunction((url) => location.href !== url, failed)
    await page.locator('[data-testid=assistant]', { hasText: '9 * 9 = 81' }).waitFor({ timeout: 10_000 })
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    expect(await page.getByTestId('fork-banner').innerText()).toContain('A retry of')
    expect(await page.locator('.messages .bubble.user').allInnerTexts()).toEqual(['What is 9 * 9?'])
  }, 60_000)

  it('9. compares two snapshots of a run: the state fields that changed, and the log entries written between them', async () => {
    await newSession(page)
    await send(page, 'What is 3 * 3?')
    await page.locator('[data-testid=assistant]', { hasText: '3 * 3 = 9' }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await openSnapshots()
    await page.getByLabel('Compare v0').check()
    await page
      .getByLabel(/^Compare v\d+$/)
      .last()
      .check()
    const diff = page.getByTestId('snapshot-diff')
    await diff.getByTestId('state-diff').waitFor()
    const state = await diff.getByTestId('state-diff').innerText()
    expect(state).toMatch(/step\s+0\s+→\s+2/)
    expect(state).toMatch(/phase\s+"\w+"\s+→\s+"done"/)
    expect(await diff.locator('.diff-entries li').allInnerTexts()).toEqual([
      expect.stringMatching(/^assistant\s+calculator/i),
      expect.stringMatching(/^tool\s+→ calculator/i),
      expect.stringMatching(/^assistant\s+3 \* 3 = 9/i),
    ])
    await screenshot(page, 'snapshot-diff')
  }, 60_000)

  it('the replay editor and the fork diff fit a 1024×768 window: every field and button within reach', async () => {
    await page.setViewportSize({ width: 1024, height: 768 })
    try {
      await editAt(1)
      const within = async (testId: string) => {
        const box = (await page.getByTestId(testId).boundingBox())!
        expect(box.x).toBeGreaterThanOrEqual(0)
        expect(box.y).toBeGreaterThanOrEqual(0)
        expect(box.x + box.width).toBeLessThanOrEqual(1024)
        expect(box.y + box.height).toBeLessThanOrEqual(768)
      }
      await within('replay-editor')
      expect(await editor().getByRole('button', { name: 'Replay from here' }).isVisible()).toBe(true)
      await screenshot(page, 'edit-and-replay-1024x768')
      await editor().getByRole('button', { name: 'Replay from here' }).click()
      await editor().waitFor({ state: 'detached' })
      await runStatus().filter({ hasText: 'completed' }).waitFor({ timeout: 10_000 })
      await page.getByRole('button', { name: 'Compare with parent' }).click()
      await page.getByTestId('fork-diff').locator('.fork-row').nth(1).waitFor()
      await within('fork-diff')
      await screenshot(page, 'fork-diff-1024x768')
      // Escape closes it, as it does the editor.
      await page.keyboard.press('Escape')
      await page.getByTestId('fork-diff').waitFor({ state: 'detached' })
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 })
    }
  }, 60_000)
})
