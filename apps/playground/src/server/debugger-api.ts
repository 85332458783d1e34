// The debugger's routes, mounted under /api beside the JSON API: model calls, the run file (export), the run tree,
// agents and tools, and the session overview.
import { type AgentRuntime, NotFoundError, type RunRecord } from '@spindle/core'
import { Hono } from 'hono'
import { agentsConfig } from './agents-config.js'
import type { Spindle } from './compose-spindle.js'
import { exportRun } from './run-export.js'
import { runTree } from './run-tree.js'
import { sessionOverview } from './session-overview.js'

const idPattern = /^[\w:.-]{1,200}$/

async function findRun(runtime: AgentRuntime, id: string): Promise<RunRecord> {
  const run = idPattern.test(id) ? await runtime.runs.getRun(id) : undefined
  if (!run) throw new NotFoundError(`[spindle/playground] no run "${id.slice(0, 200)}"`)
  return run
}

export function createDebuggerApi(spindle: Spindle): Hono {
  const { runtime } = spindle
  const routes = new Hono()

  // Every model call of the run (kept in memory by this process): the exact request, the raw response, the window.
  routes.get('/runs/:id/model-calls', async (c) => {
    const run = await findRun(runtime, c.req.param('id'))
    return c.json({ runId: run.id, calls: spindle.modelCalls.forRun(run.id) })
  })

  // The run file: a download that `replayRunFile` replays offline with mockModel.
  routes.get('/runs/:id/export', async (c) => {
    const run = await findRun(runtime, c.req.param('id'))
    const file = await exportRun(runtime, spindle.modelCalls, run)
    c.header('content-disposition', `attachment; filename="${run.id}.run.json"`)
    return c.body(JSON.stringify(file, null, 2), 200, { 'content-type': 'application/json; charset=utf-8' })
  })

  routes.get('/runs/:id/tree', async (c) => {
    const run = await findRun(runtime, c.req.param('id'))
    return c.json({ tree: await runTree(runtime, run) })
  })

  routes.get('/agents', (c) => c.json(agentsConfig(spindle)))

  routes.get('/sessions/:id/overview', async (c) => {
    const id = c.req.param('id')
    const session = idPattern.test(id) ? await runtime.sessions.getSession(id) : undefined
    if (!session) throw new NotFoundError(`[spindle/playground] no session "${id.slice(0, 200)}"`)
    return c.json(await sessionOverview(runtime, spindle.models, session.id))
  })
  return routes
}
