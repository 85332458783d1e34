// The React example end to end in Debian's Chromium: the Vite build served by the Hono server, useChat on a durable
// Spindle agent (SQLite, scripted model). A streamed answer, a tool call that asks for approval and completes once
// approved, and a reload in the middle of an answer after which the whole answer shows exactly once.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { build } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, missingBrowserReason } from './e2e/chromium.js'
import { startChatServer, type ChatServer } from './server/chat-server.js'
import { storyText } from './server/scripted-chat-model.js'

const exampleRoot = join(import.meta.dirname, '..')
const screenshotPath = join(exampleRoot, 'screenshot.png')
const skipReason = missingBrowserReason()
const suite = skipReason ? describe.skip : describe

let server: (ChatServer & { url: string }) | undefined
let browser: Browser | undefined
let page: Page
const dataDir = mkdtempSync(join(tmpdir(), 'spindle-react-chat-'))

const assistantMessages = () => page.locator('[data-testid=message-assistant]')
const lastAssistantText = () => assistantMessages().last().innerText()

async function send(text: string): Promise<void> {
  await page.getByLabel('Message').fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
}

/** Waits until useChat is idle again (the answer ended or suspended). */
async function untilReady(): Promise<void> {
  await page.locator('[data-testid=status][data-status=ready]').waitFor({ state: 'attached' })
}

/** Records the assistant's text length at every DOM change, to see the answer arrive in pieces. */
async function recordTextLengths(): Promise<void> {
  await page.evaluate(() => {
    const lengths: number[] = []
    ;(window as unknown as { lengths: number[] }).lengths = lengths
    new MutationObserver(() => {
      const messages = document.querySelectorAll('[data-testid=message-assistant]')
      const text = messages[messages.length - 1]?.textContent ?? ''
      if (lengths.at(-1) !== text.length) lengths.push(text.length)
    }).observe(document.body, { childList: true, subtree: true, characterData: true })
  })
}

suite(skipReason ? `react-chat e2e (skipped: ${skipReason})` : 'react-chat example in headless Chromium', () => {
  beforeAll(async () => {
    // Built once for the whole file; the server serves dist/web like `pnpm start` does.
    await build({ configFile: join(exampleRoot, 'vite.config.ts'), root: join(exampleRoot, 'src', 'web'), logLevel: 'error' })
    server = await startChatServer({
      databasePath: join(dataDir, 'chat.db'),
      webRoot: join(exampleRoot, 'dist', 'web'),
      port: 0,
      model: { chunkDelayMs: 60, chunkSize: 6 },
    })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 900, height: 1000 } })
    await page.goto(server.url)
    await page.waitForURL(/\?chat=chat-/)
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('streams an answer, renders the tool call, and completes the run once it is approved', { timeout: 60_000 }, async () => {
    await recordTextLengths()
    await send('Please send an email to ada@example.com')
    const toolCall = page.locator('[data-testid=tool-call]').last()
    await toolCall.and(page.locator('[data-state=approval-requested]')).waitFor()
    expect(await toolCall.innerText()).toContain('send_email to ada@example.com')
    // The text before the call arrived in several pieces, each longer than the last.
    const lengths = await page.evaluate(() => (window as unknown as { lengths: number[] }).lengths)
    expect(lengths.length).toBeGreaterThanOrEqual(4)
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b))
    expect(await lastAssistantText()).toContain('I will send that email; the tool asks for your approval first.')
    await untilReady()
    expect(server!.outbox).toEqual([])

    await toolCall.getByRole('button', { name: 'Approve' }).click()
    await toolCall.and(page.locator('[data-state=output-available]')).waitFor()
    await assistantMessages().last().getByText('Done: the email to ada@example.com is sent (message id msg-1).').waitFor()
    await untilReady()
    expect(server!.outbox.map((email) => email.to)).toEqual(['ada@example.com'])
    const [run] = await server!.runtime.runs.listRuns({ limit: 1 })
    expect(run).toMatchObject({ status: 'completed', finishReason: 'stop' })
  })

  it('a reload in the middle of an answer loses nothing: the whole answer shows once, the chat before it too', { timeout: 60_000 }, async () => {
    await send('Tell me a story')
    // Some of the story is on the page, not all of it; the run is still going on the server.
    await page.waitForFunction(
      (start) => {
        const messages = document.querySelectorAll('[data-testid=message-assistant]')
        const text = messages[messages.length - 1]?.textContent ?? ''
        return text.startsWith(start) && text.length > 40
      },
      storyText.slice(0, 20),
    )
    const shownBefore = await lastAssistantText()
    expect(shownBefore.length).toBeLessThan(storyText.length)
    const [running] = await server!.runtime.runs.listRuns({ limit: 1 })
    expect(running?.status).toBe('running')

    const resumed: number[] = []
    page.on('response', (response) => {
      if (response.url().endsWith('/stream')) resumed.push(response.status())
    })
    await page.reload()
    await assistantMessages().last().getByText(storyText).waitFor()
    // useChat's resume found the run still going and replayed it (200; 204 would mean it had ended already).
    expect(resumed).toEqual([200])
    await untilReady()
    expect(await lastAssistantText()).toBe(storyText)
    const body = await page.locator('main').innerText()
    expect(body.split('Once upon a time').length - 1).toBe(1)
    expect(body.split('The moral: write it down first.').length - 1).toBe(1)
    // The earlier exchange came back from the server's store, approval and result included.
    expect(await page.locator('[data-testid=tool-call][data-state=output-available]').count()).toBe(1)
    expect(body.split('Done: the email to ada@example.com is sent').length - 1).toBe(1)
    expect(await page.locator('[data-testid=message-user]').allInnerTexts()).toEqual(['Please send an email to ada@example.com', 'Tell me a story'])
    // The README's picture: written when missing, or replaced with UPDATE_SCREENSHOTS=1 (else to the temp dir).
    const shot = join(existsSync(screenshotPath) && process.env.UPDATE_SCREENSHOTS !== '1' ? dataDir : exampleRoot, 'screenshot.png')
    await page.screenshot({ path: shot, fullPage: true })
    expect(statSync(shot).size).toBeGreaterThan(10_000)
  })
})
