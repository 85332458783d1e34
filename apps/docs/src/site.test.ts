// Builds the site once (the API reference from TSDoc, the plots, then VitePress) and checks what a reader gets:
// no broken internal link or anchor, every public export documented, and the pages work in a real browser.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missingBrowserReason, launchChromium } from './browser.js'
import { buildSite, distDir, docsDir, siteDir } from './build-site.js'
import { findBrokenLinks } from './check-links.js'
import { serveStatic } from './static-server.js'

beforeAll(async () => {
  await buildSite()
}, 900_000)

describe('the built site', () => {
  it('has no broken internal link or anchor', () => {
    const { broken, links, pages } = findBrokenLinks(distDir)
    expect(pages).toBeGreaterThan(40)
    expect(links).toBeGreaterThan(1000)
    expect(broken).toEqual([])
  })

  it('renders the benchmark plots from bench/results and holds the screenshots of the playground and examples/react-chat', () => {
    for (const plot of ['kernel-per-step.svg', 'durable-per-step.svg']) {
      const svg = readFileSync(join(distDir, 'plots', plot), 'utf8')
      expect(svg).toMatch(/^<svg/)
      expect(svg).toContain('spindle')
    }
    for (const screenshot of ['chat-and-timeline.png', 'playground/debugger-model-calls-1440x900.png', 'playground/edit-and-replay.png', 'react-chat.png'])
      expect(existsSync(join(distDir, 'screenshots', screenshot)), screenshot).toBe(true)
  })

  it('documents every public export (TypeDoc validation.notDocumented; known-undocumented.json is empty and may only stay so)', () => {
    const undocumented: string[] = JSON.parse(readFileSync(join(siteDir, 'api/undocumented.json'), 'utf8'))
    const known: string[] = JSON.parse(readFileSync(join(docsDir, 'known-undocumented.json'), 'utf8'))
    const newlyUndocumented = undocumented.filter((name) => !known.includes(name))
    const nowDocumented = known.filter((name) => !undocumented.includes(name))
    expect(newlyUndocumented, 'these public exports have no TSDoc comment: add one').toEqual([])
    // Exports documented since the list was written only shrink it; say so, without failing others' commits.
    if (nowDocumented.length > 0)
      console.info(`[spindle/docs] ${nowDocumented.length} exports of known-undocumented.json are documented now: remove them from it`)
    expect(undocumented.length).toBeLessThanOrEqual(known.length)
    // The list was emptied (every export has TSDoc): an entry added back is a gap to close, not to record.
    expect(known, 'known-undocumented.json must stay empty: document the export instead of listing it').toEqual([])
  })

  it('has an API page for AgentRuntime with its methods', () => {
    const html = readFileSync(join(distDir, 'api/@spindle/core/classes/AgentRuntime.html'), 'utf8')
    for (const method of ['run', 'stream', 'resume', 'approve', 'cancel', 'subscribe', 'recover', 'enqueue', 'work']) expect(html).toContain(`id="${method}"`)
  })
})

const noBrowser = missingBrowserReason()
describe.skipIf(noBrowser !== undefined)(`the site in Chromium${noBrowser ? ` (skipped: ${noBrowser})` : ''}`, () => {
  let browser: Browser
  let server: Awaited<ReturnType<typeof serveStatic>>
  beforeAll(async () => {
    server = await serveStatic(distDir)
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('opens the home page, a guide and the AgentRuntime API page, and the local search finds "reconcile"', async () => {
    const page = await browser.newPage()
    const failed: string[] = []
    // A prefetch that a navigation cancels fails as net::ERR_ABORTED (timing-dependent, not a defect); any other
    // failure, and any HTTP error status, is one.
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText !== 'net::ERR_ABORTED') failed.push(`${request.url()}: ${request.failure()?.errorText}`)
    })
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.url()}: HTTP ${response.status()}`)
    })
    page.on('pageerror', (error) => failed.push(error.message))

    await page.goto(`${server.url}/`)
    await expect(page.locator('.VPHero .name').innerText()).resolves.toContain('Spindle')

    await page.goto(`${server.url}/guides/testing.html`)
    await expect(page.locator('.vp-doc h1').innerText()).resolves.toContain('Testing')
    await page.locator('.VPSidebar a[href="/concepts/durability.html"]').click()
    await page.waitForURL(/concepts\/durability/)
    await expect(page.locator('.vp-doc h1').innerText()).resolves.toContain('Durability')

    await page.goto(`${server.url}/api/@spindle/core/classes/AgentRuntime.html`)
    await expect(page.locator('.vp-doc h1').innerText()).resolves.toContain('AgentRuntime')
    await expect(page.locator('.vp-doc h3#recover').count()).resolves.toBe(1)

    await page.locator('.VPNavBarSearch button').first().click()
    await page.locator('input.search-input').fill('reconcile')
    const results = page.locator('ul.results li')
    await results.first().waitFor({ timeout: 15_000 })
    expect(await results.count()).toBeGreaterThan(0)
    expect((await results.allInnerTexts()).join('\n').toLowerCase()).toContain('reconcile')
    // Following a result opens the page that explains it.
    const before = page.url()
    await results
      .filter({ hasText: /durability/i })
      .first()
      .click()
    await page.waitForURL((url) => url.href !== before)
    await expect(page.locator('.vp-doc h1').innerText()).resolves.toContain('Durability')
    expect((await page.locator('.vp-doc').innerText()).toLowerCase()).toContain('reconcile')

    expect(failed).toEqual([])
    await page.close()
  }, 120_000)
})
