// Screenshots of the debugger's panels at both sizes the issue asks for (1440×900 and 1024×768), each checked for
// usability first: the layer fills the window and its body neither overflows sideways nor hides its content.
// With UPDATE_SCREENSHOTS=1 the copies referenced by the playground README are replaced (apps/playground/screenshots).
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { appRoot } from '../server/config.js'

export const viewports = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const

const shots = mkdtempSync(join(tmpdir(), 'spindle-debugger-shots-'))

/** Checks the open debugger at each size, saves `<name>-<width>x<height>.png`, and returns to 1440×900. */
export async function screenshotAtBothSizes(page: Page, name: string): Promise<string[]> {
  const saved: string[] = []
  for (const size of viewports) {
    await page.setViewportSize(size)
    const layout = (await page.evaluate(`(() => {
      const layer = document.querySelector('[data-testid=debugger]').getBoundingClientRect()
      const body = document.querySelector('.debugger-body')
      const bar = document.querySelector('.debugger-bar').getBoundingClientRect()
      return { width: layer.width, height: layer.height, overflowX: body.scrollWidth - body.clientWidth, bodyHeight: body.clientHeight, barHeight: bar.height }
    })()`)) as { width: number; height: number; overflowX: number; bodyHeight: number; barHeight: number }
    expect(layout.width).toBe(size.width)
    expect(layout.height).toBe(size.height)
    expect(layout.overflowX).toBeLessThanOrEqual(0)
    // The tab bar stays one line, and most of the window is left to the panel.
    expect(layout.barHeight).toBeLessThan(60)
    expect(layout.bodyHeight).toBeGreaterThan(size.height - 80)
    const file = join(shots, `${name}-${size.width}x${size.height}.png`)
    await page.screenshot({ path: file })
    saved.push(file)
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      const target = join(appRoot, 'screenshots')
      mkdirSync(target, { recursive: true })
      copyFileSync(file, join(target, `${name}-${size.width}x${size.height}.png`))
    }
  }
  await page.setViewportSize(viewports[0])
  return saved
}
