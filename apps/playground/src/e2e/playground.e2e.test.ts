// End to end in a real headless Chromium: chat with streaming and the timeline, approvals, reload mid-run, kill and resume.
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eventLogProblems, type AgentEvent } from '@spindle/core'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appRoot } from '../server/config.js'
import { missingBrowserReason } from './browser.js'
import { newSession as openNewSession, openPlaygroundPage, send as sendOn, type PlaygroundPage } from './playground-page.js'

const skipReason = missingBrowserReason()
const suite = skipReason ? describe.skip : describe
const shots = mkdtempSync(join(tmpdir(), 'spindle-shots-'))
const moral = 'The moral: write it down first.'

let opened: PlaygroundPage | undefined
let page: Page

/** Saves a screenshot; with UPDATE_SCREENSHOTS=1 it also replaces the README's copy in docs/screenshots. */
async function screenshot(name: string): Promise<void> {
  const file = join(shots, `${name}.png`)
  await page.screenshot({ path: file })
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    const target = join(appRoot, '..', '..', 'docs', 'screenshots')
    mkdirSync(target, { recursive: true })
    copyFileSync(file, join(target, `${name}.png`))
  }
}

const newSession = () => openNewSession(page)
const send = (text: string) => sendOn(page, text)

const assistantText = () => page.locator('[data-testid=assistant]').last().innerText()
const runStatus = page_locator('[data-testid=run-status]')

function page_locator(selector: string) {
  return () => page.locator(selector)
}

async function eventSeqs(): Promise<number[]> {
  await page.getByRole('button', { name: /^events/ }).click()
  return page.locator('[data-testid=event-log] li').evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-seq'))))
}

suite(skipReason ? `playground e2e (skipped: ${skipReason})` : 'playground e2e in headless Chromium', () => {
  beforeAll(async () => {
    opened = await openPlaygroundPage({ chunkDelayMs: 12 })
    page = opened.page
  }, 60_000)

  afterAll(() => opened?.close())

  it('sends a message, streams the answer, and shows the tool call in the timeline', async () => {
    expect(page.url()).not.toContain('token=')
    expect(await page.getByTestId('demo-label').innerText()).toBe('no API key needed')
    await send('What is 12 * (3 + 4)?')
    await page.locator('[data-testid=assistant]', { hasText: '12 * (3 + 4) = 84' }).waitFor()
    await page.locator('[data-testid=timeline-tool]', { hasText: 'calculator' }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    expect(await page.locator('[data-testid=tool-chip]').first().innerText()).toContain('calculator')
    await page.locator('[data-testid=timeline-tool]').first().click()
    expect(await page.getByTestId('timeline').innerText()).toContain('"value": 84')
    await screenshot('chat-and-timeline')
  })

  it('asks before a gated tool runs, and continues once approved', async () => {
    await newSession()
    await send('delete todo.txt')
    const approval = page.getByTestId('approval')
    await approval.waitFor()
    expect(await approval.innerText()).toContain('delete_file')
    await runStatus().filter({ hasText: 'suspended' }).waitFor()
    await screenshot('approval')
    await approval.getByRole('button', { name: 'Approve' }).click()
    await page.locator('[data-testid=assistant]', { hasText: 'Deleted todo.txt.' }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    expect(await approval.count()).toBe(0)
  })

  it('a streaming answer shows from its first word: the events before the page subscribed are there mid-step', async () => {
    await newSession()
    await send('Tell me a long story')
    await page.getByRole('button', { name: /^events/ }).click()
    await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 40)
    // Mid-step (its events reach the log only at its end), the page has every event from the first.
    expect(await runStatus().innerText()).toBe('running')
    const seqs = await page.locator('[data-testid=event-log] li').evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-seq'))))
    expect(seqs).toEqual(seqs.map((_, index) => index + 1))
    expect(await page.locator('[data-testid=event-log] li .type').allInnerTexts()).toContain('step.started')
    expect(await assistantText()).toMatch(/^Once upon a time/)
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await page.getByRole('button', { name: /^timeline/ }).click()
  })

  it('a double click on Approve approves once, without an error', async () => {
    await newSession()
    await send('write twice.txt with "once"')
    const approval = page.getByTestId('approval')
    await approval.waitFor()
    await approval.getByRole('button', { name: 'Approve' }).dblclick()
    await page.locator('[data-testid=assistant]', { hasText: 'Wrote' }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    await page.waitForTimeout(300)
    expect(await page.getByRole('alert').count()).toBe(0)
    expect(await page.locator('[data-testid=tool-chip] .tool-status').allInnerTexts()).toEqual([expect.stringMatching(/^done/)])
  })

  it('a reload mid-run loses nothing: the stream continues and every event arrives once', async () => {
    await newSession()
    const runId = await send('Tell me a long story')
    await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 30)
    const partial = await assistantText()
    expect(partial).not.toContain(moral)
    await page.reload()
    await page.locator('[data-testid=assistant]', { hasText: moral }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    const finished = await page.evaluate(async (id) => (await (await fetch(`/api/runs/${id}`)).json()).events.at(-1), runId)
    // Deltas streamed before the reload come back at once (from the server's memory, then its log), in their place.
    await page.waitForFunction((text) => [...document.querySelectorAll('[data-testid=assistant]')].at(-1)?.textContent === text, finished.text, {
      timeout: 5000,
    })
    expect(await assistantText()).toBe(finished.text)
    const seqs = await eventSeqs()
    expect(seqs).toEqual(seqs.map((_, index) => index + 1))
    expect(seqs.at(-1)).toBe(finished.seq)
    await screenshot('event-log')
    await page.getByRole('button', { name: /^timeline/ }).click()
  })

  it('kills a running run and resumes it to the end', async () => {
    await newSession()
    const runId = await send('Tell me a long story')
    await page.waitForFunction(() => (document.querySelector('[data-testid=assistant]')?.textContent?.length ?? 0) > 20)
    await page.getByRole('button', { name: 'Kill' }).click()
    await runStatus().filter({ hasText: 'interrupted' }).waitFor()
    // The conversation says the run stopped and what it waits for; a message sent now would wait: the button says so.
    await page.locator('.messages .status', { hasText: 'Run interrupted' }).waitFor({ timeout: 5000 })
    await page.getByLabel('Message').fill('What is 1 + 1?')
    expect(await page.locator('.composer button[type=submit]').innerText()).toBe('Queue')
    await page.getByLabel('Message').fill('')
    await page.getByRole('button', { name: 'Resume' }).click()
    await page.locator('[data-testid=assistant]', { hasText: moral }).waitFor()
    await runStatus().filter({ hasText: 'completed' }).waitFor()
    expect(await page.locator('.messages .status', { hasText: 'Run interrupted' }).count()).toBe(0)
    expect(await page.locator('.status', { hasText: 'Resumed from step' }).count()).toBe(1)
    expect((await assistantText()).match(/Once upon a time/g)).toHaveLength(1)
    // The page holds exactly the stored log: numbers only grow, and the hole the kill left is the range run.resumed declares.
    const logged = (await page.evaluate(async (id) => (await (await fetch(`/api/runs/${id}`)).json()).events, runId)) as AgentEvent[]
    expect(eventLogProblems(logged, { finished: true })).toEqual([])
    expect(await eventSeqs()).toEqual(logged.map((event) => event.seq))
    // The events the page showed live before the kill and the log never got are declared, and the page says so.
    const resumed = logged.find((event) => event.type === 'run.resumed') as { discarded?: { from: number; to: number } } | undefined
    if (resumed?.discarded) expect(await page.getByTestId('discarded-note').innerText()).toContain('discarded by a crash')
    await page.getByRole('button', { name: /^snapshots/ }).click()
    await page.getByTestId('snapshots').getByRole('button', { name: 'View' }).last().click()
    await screenshot('kill-resume-snapshots')
  })
})
