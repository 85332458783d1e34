// End to end in a real headless Chromium: the debugger as a user drives it — what the model saw per call, the event
// log as a tool (filter, search, expand, copy, export, import), the agent tree with a sub-run and a handoff, the
// agents and tools panel, and the session overview's plots. Each panel is shot at 1440×900 and 1024×768.
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseRunFile } from '../replay/run-file.js'
import { missingBrowserReason } from './browser.js'
import { screenshotAtBothSizes } from './debugger-screens.js'
import { newSession, openPlaygroundPage, routeSessionId, send, type PlaygroundPage } from './playground-page.js'

const skipReason = missingBrowserReason()
const suite = skipReason ? describe.skip : describe

let opened: PlaygroundPage | undefined
let page: Page

const debuggerLayer = () => page.getByTestId('debugger')
const completed = () => page.locator('[data-testid=run-status]').filter({ hasText: 'completed' }).waitFor()

async function openDebugger(tab: string): Promise<void> {
  if (!(await debuggerLayer().isVisible())) await page.getByRole('button', { name: 'Debugger' }).click()
  await debuggerLayer().getByRole('tab', { name: tab }).click()
}

async function closeDebugger(): Promise<void> {
  await page.keyboard.press('Escape')
  await debuggerLayer().waitFor({ state: 'detached' })
}

suite(skipReason ? `playground debugger (skipped: ${skipReason})` : 'playground debugger in headless Chromium', () => {
  beforeAll(async () => {
    opened = await openPlaygroundPage({ chunkDelayMs: 2 })
    page = opened.page
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
  }, 60_000)

  afterAll(() => opened?.close())

  it('shows what the model saw: each call’s messages, tool schemas, settings, raw response and context window', async () => {
    await newSession(page)
    await send(page, 'What is 12 * (3 + 4)?')
    await completed()
    await openDebugger('Model calls')
    const calls = page.getByRole('list', { name: 'Model calls' }).getByRole('button')
    await expect.poll(() => calls.count()).toBe(2)
    await calls.filter({ hasText: 'Step 2' }).click()
    const detail = page.getByTestId('model-call-detail')
    // The second request carries the tool's result, as its own message and as its own part of the window.
    await detail.locator('[data-role=tool]', { hasText: '84' }).waitFor()
    expect(await detail.locator('.request-messages > li').first().getAttribute('data-role')).toBe('system')
    expect(await detail.locator('.tool-schemas code').allInnerTexts()).toContain('calculator')
    expect(await page.getByTestId('model-call-settings').innerText()).toContain('maxOutputTokens')
    expect(await page.getByTestId('model-call-response').innerText()).toContain('"delta":"12 * (3 + 4) = 84"')
    const window = page.getByTestId('context-window')
    expect(await window.innerText()).toMatch(/of 32,000 tokens/)
    const toolResults = await window.locator('.context-legend li[data-part=tool-results]').innerText()
    expect(Number(toolResults.replace(/\D+/g, ''))).toBeGreaterThan(0)
    expect(await window.locator('svg rect[data-part=tool-results]').getAttribute('width')).not.toBe('0')
    const calculator = detail.locator('.tool-schemas li').filter({ has: page.locator('code', { hasText: /^calculator$/ }) })
    await calculator.locator('summary').click()
    expect(await calculator.locator('pre').innerText()).toContain('"expression"')
    // The shot starts at the top: the calls, the context window and the first messages.
    await page.locator('.debugger-body').evaluate((body) => body.scrollTo(0, 0))
    await screenshotAtBothSizes(page, 'debugger-model-calls')
  })

  it('works the event log: filter, search, expand, copy, export the run file and import it back', async () => {
    await openDebugger('Event log')
    const rows = page.locator('[data-testid=event-rows] > li')
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBeGreaterThan(10) // the log is fetched when the tab opens
    const all = await rows.count()
    await page.getByLabel('Event type', { exact: true }).selectOption('tool.result')
    await expect.poll(() => rows.count()).toBe(1)
    await page.getByLabel('Event type', { exact: true }).selectOption('')
    await page.getByLabel('Step', { exact: true }).selectOption('2')
    expect(await rows.evaluateAll((items) => items.every((item) => item.getAttribute('data-type') !== 'tool.call'))).toBe(true)
    await page.getByLabel('Step', { exact: true }).selectOption('')
    await page.getByLabel('Tool', { exact: true }).selectOption('calculator')
    await expect
      .poll(() => rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-type'))))
      .toEqual(['tool.call', 'tool.started', 'tool.result'])
    await page.getByLabel('Tool', { exact: true }).selectOption('')
    await page.getByLabel('Search events').fill('"value":84')
    await expect.poll(() => rows.count()).toBe(1)
    expect(await page.getByTestId('event-count').innerText()).toBe(`1 of ${all} events`)
    const row = rows.first()
    await row.locator('summary').click()
    expect(await row.locator('pre').innerText()).toContain('"durationMs"')
    await row.getByRole('button', { name: 'Copy' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: /^Copied event \d+\.$/ })
      .waitFor()
    const copied = JSON.parse((await page.evaluate('navigator.clipboard.readText()')) as string)
    expect(copied).toMatchObject({ type: 'tool.result', toolName: 'calculator', result: { value: 84 } })
    await screenshotAtBothSizes(page, 'debugger-event-log')
    await page.getByLabel('Search events').fill('')

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-run').click()])
    const file = parseRunFile(readFileSync((await download.path())!, 'utf8'))
    expect(file.events).toHaveLength(all)
    expect(file.modelCalls).toHaveLength(2)
    expect(file.journal.map((call) => call.toolName)).toEqual(['calculator'])

    await page.getByLabel('Import run file').setInputFiles({ name: 'not-a-run.json', mimeType: 'application/json', buffer: Buffer.from('{"format":"other"}') })
    await page.getByRole('status').filter({ hasText: 'not a run file' }).waitFor()
    await page.getByLabel('Import run file').setInputFiles((await download.path())!)
    const banner = page.getByTestId('imported-banner')
    await banner.waitFor()
    expect(await banner.innerText()).toContain(file.run.id)
    expect(await banner.innerText()).toContain(`${all} events`)
    await page.getByLabel('Event type', { exact: true }).selectOption('run.finished')
    await expect.poll(() => rows.count()).toBe(1)
    await page.getByLabel('Event type', { exact: true }).selectOption('')
    await banner.getByRole('button', { name: 'Back to the live run' }).click()
    await banner.waitFor({ state: 'detached' })
  })

  it('shows an agent tool’s sub-run nested under the calling step, opens it, and shows a handoff', async () => {
    await closeDebugger()
    const parentRun = await send(page, 'delegate: what is 6 * 7')
    await completed()
    await openDebugger('Agent tree')
    const tree = page.getByTestId('run-tree')
    const sub = tree.locator('[data-tool=ask_researcher] > .tree-node[data-agent=researcher]')
    await sub.waitFor()
    expect(await sub.locator('[data-tool=calculator]').innerText()).toContain('ok')
    await screenshotAtBothSizes(page, 'debugger-agent-tree')
    await sub.getByRole('button', { name: 'Open run' }).click()
    await page.waitForFunction(`location.hash.includes('/s/sub_')`)
    await tree.getByRole('button', { name: /^run_/ }).click()
    await page.waitForFunction(`location.hash.includes(${JSON.stringify(encodeURIComponent(parentRun))})`)
    await tree.locator('[data-tool=ask_researcher]').waitFor()

    await closeDebugger()
    await send(page, 'please hand over to the accountant')
    await completed()
    await openDebugger('Agent tree')
    expect(await page.getByTestId('tree-handoff').innerText()).toContain('handed over from playground to accountant')
  })

  it('lists the agents, their tools with schemas and effect classes, the policy, stores and providers', async () => {
    await openDebugger('Agents & tools')
    const panel = page.getByTestId('agents-panel')
    // The panel fetches /api/agents when it opens: poll until the cards are drawn (evaluateAll does not wait).
    await expect
      .poll(() => panel.locator('.agent-card').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-agent'))), { timeout: 10_000 })
      .toEqual(['playground', 'researcher', 'accountant'])
    const main = panel.locator('.agent-card[data-agent=playground]')
    expect(await main.locator('.instructions').innerText()).toContain('You are the assistant of the Spindle playground')
    expect(await main.locator('tr[data-tool=delete_file]').innerText()).toMatch(/irreversible\s+always/)
    expect(await main.locator('tr[data-tool=ask_researcher]').innerText()).toContain('sub-run of researcher')
    await main.locator('tr[data-tool=calculator] summary').click()
    expect(await main.locator('tr[data-tool=calculator] pre').innerText()).toContain('"expression"')
    expect(await page.getByTestId('policy-table').innerText()).toMatch(/maxSteps\s+8/)
    expect(await page.getByTestId('store-kind').innerText()).toBe('sqlite')
    expect(await page.getByTestId('providers').innerText()).toContain('demo:scripted')
    await screenshotAtBothSizes(page, 'debugger-agents-tools')
  })

  it('plots the session: tokens and cost over time, steps per run, tool latency', async () => {
    await closeDebugger()
    await newSession(page)
    await send(page, 'What is 2 + 2?')
    await completed()
    const sessionId = routeSessionId(page)!
    await send(page, 'list my notes')
    await completed()
    await send(page, 'hello')
    await completed()
    await openDebugger('Session overview')
    const overview = page.getByTestId('session-overview')
    await overview.waitFor()
    expect(await page.getByTestId('overview-totals').innerText()).toMatch(/^3 runs\s+5 steps/)
    expect(await page.getByTestId('chart-tokens').locator('circle').count()).toBe(3)
    expect(await page.getByTestId('chart-cost').locator('circle').count()).toBe(3)
    expect(await page.getByTestId('chart-steps').locator('rect.bar-rect').count()).toBe(3)
    expect(
      await page
        .getByTestId('chart-tools')
        .locator('g[data-bar]')
        .evaluateAll((bars) => bars.map((bar) => bar.getAttribute('data-bar'))),
    ).toEqual(['calculator', 'notes'])
    // The tokens line only grows: each run adds its tokens.
    const heights = await page
      .getByTestId('chart-tokens')
      .locator('circle')
      .evaluateAll((dots) => dots.map((dot) => Number(dot.getAttribute('cy'))))
    expect(heights[0]).toBeGreaterThan(heights[2]!)
    expect(routeSessionId(page)).toBe(sessionId)
    await screenshotAtBothSizes(page, 'debugger-session-overview')
  })
})
