// Launches Debian's Chromium through playwright-core (never a downloaded browser), as the playground's e2e tests do.
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Why the browser test cannot run here, or undefined when it can. In CI a missing browser is an error, not a skip. */
export function missingBrowserReason(): string | undefined {
  if (existsSync(chromiumPath)) return undefined
  const reason = `${chromiumPath} is missing (install it with: apt-get install -y chromium)`
  if (process.env.CI === 'true') throw new Error(`[spindle/docs] the browser test must run in CI, but ${reason}`)
  return reason
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  })
}
