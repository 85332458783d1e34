// Per-session usage totals: the sum of the usage recorded on every run of a session.
import { addUsage, emptyUsage } from '../runtime/run-state.js'
import type { Usage } from '../spec/messages.js'
import type { RunStore } from '../spec/run-store.js'

export interface SessionUsage {
  sessionId: string
  runs: number
  usage: Usage
}

/**
 * Sums input, output, cached and reasoning tokens and cost over the runs of a session.
 *
 * @example
 * const { usage } = await sessionUsage(runtime.runs, sessionId)
 * console.log(usage.inputTokens, usage.costUsd)
 */
export async function sessionUsage(runs: RunStore, sessionId: string, options: { pageSize?: number } = {}): Promise<SessionUsage> {
  const pageSize = options.pageSize ?? 500
  let total = emptyUsage()
  let count = 0
  let before: number | undefined
  const seen = new Set<string>()
  for (;;) {
    const page = await runs.listRuns({ sessionId, limit: pageSize, ...(before !== undefined ? { before } : {}) })
    let added = 0
    for (const run of page) {
      if (seen.has(run.id)) continue
      seen.add(run.id)
      total = addUsage(total, run.usage)
      count++
      added++
    }
    if (page.length < pageSize || added === 0) break
    // Runs created in the same millisecond as the page's last one are fetched again and de-duplicated above.
    before = page[page.length - 1]!.createdAt + 1
  }
  total.totalTokens = total.inputTokens + total.outputTokens
  return { sessionId, runs: count, usage: total }
}
