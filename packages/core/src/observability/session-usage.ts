// Per-session usage totals: the sum of the usage recorded on every run of a session.
import { addUsage, emptyUsage } from '../util/usage.js'
import type { Usage } from '../spec/messages.js'
import type { RunStore } from '../spec/run-store.js'

/** What `sessionUsage()` adds up for a session: its runs and their total tokens and cost. */
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
  const seen = new Map<string, number>()
  let before: number | undefined
  // Runs created in the same millisecond as a page's oldest are listed again (`before` is exclusive, so it
  // is that millisecond + 1): the limit grows by those already counted, so every page brings new runs.
  let ties = 0
  for (;;) {
    const limit = pageSize + ties
    const page = await runs.listRuns({ sessionId, limit, ...(before !== undefined ? { before } : {}) })
    for (const run of page) {
      if (seen.has(run.id)) continue
      seen.set(run.id, run.createdAt)
      total = addUsage(total, run.usage)
    }
    if (page.length < limit) break
    const oldest = page[page.length - 1]!.createdAt
    before = oldest + 1
    ties = 0
    for (const createdAt of seen.values()) if (createdAt === oldest) ties++
  }
  total.totalTokens = total.inputTokens + total.outputTokens
  return { sessionId, runs: seen.size, usage: total }
}
