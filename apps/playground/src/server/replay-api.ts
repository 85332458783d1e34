// The debugger's edit-and-replay, retry and diff routes, mounted under /api beside the JSON API.
import { type JsonObject, type JsonValue, NotFoundError, type RunRecord } from '@spindle/core'
import { Hono } from 'hono'
import { z } from 'zod'
import { ApiError, body } from './api.js'
import type { Spindle } from './compose-spindle.js'
import { ReplayEditError, replayRun, replaySource, type ReplayRequest } from './replay-run.js'
import type { RunManager } from './run-manager.js'
import { RunStateConflictError } from './run-state-conflict-error.js'
import { runtimeStateOf } from './runtime-state.js'
import { describeEntry, diffConversations, diffValues } from './state-diff.js'

const idPattern = /^[\w:.-]{1,200}$/
const jsonObject = z.record(z.string(), z.json()) as unknown as z.ZodType<JsonObject>
const replayBody = z
  .object({
    version: z.number().int().min(0),
    edits: z
      .object({
        messages: z
          .array(z.object({ seq: z.number().int().min(1), text: z.string().max(20_000) }).strict())
          .max(200)
          .optional(),
        toolResults: z
          .array(z.object({ callId: z.string().min(1).max(200), result: z.json() as unknown as z.ZodType<JsonValue> }).strict())
          .max(200)
          .optional(),
      })
      .strict()
      .optional(),
    runtimeState: jsonObject.optional(),
    model: z.string().max(200).optional(),
  })
  .strict()
const versions = z.object({ from: z.coerce.number().int().min(0), to: z.coerce.number().int().min(0) })

export function createReplayApi(spindle: Spindle, manager: RunManager): Hono {
  const { runtime } = spindle
  const routes = new Hono()
  const findRun = async (id: string): Promise<RunRecord> => {
    const run = idPattern.test(id) ? await runtime.runs.getRun(id) : undefined
    if (!run) throw new NotFoundError(`[spindle/playground] no run "${id.slice(0, 200)}"`)
    return run
  }
  const replay = async (request: ReplayRequest) => {
    try {
      return await replayRun(spindle, manager, request)
    } catch (error) {
      if (error instanceof ReplayEditError) throw new ApiError(400, 'bad_edit', error.message)
      throw error
    }
  }

  // What the replay editor shows: the log up to the snapshot (each entry editable), and the session's runtime state.
  routes.get('/runs/:id/snapshots/:version/entries', async (c) => {
    const run = await findRun(c.req.param('id'))
    const version = Number(c.req.param('version'))
    if (!Number.isInteger(version) || version < 0) throw new ApiError(400, 'bad_request', '[spindle/playground] the snapshot version is a whole number')
    const { snapshot, entries, firstSeq } = await replaySource(spindle, run, version)
    const session = await runtime.sessions.getSession(run.sessionId)
    return c.json({ version, step: snapshot?.state.step, firstSeq, entries, runtimeState: runtimeStateOf(session?.metadata) })
  })

  // Edit and replay: a new session with the log up to the snapshot, edited, and a new run from there.
  routes.post('/runs/:id/replay', async (c) => {
    const run = await findRun(c.req.param('id'))
    const input = await body(c.req.raw, replayBody)
    return c.json(await replay({ runId: run.id, version: input.version, edits: input.edits, runtimeState: input.runtimeState, model: input.model }), 201)
  })

  // Retry a failed run: the same, from its last snapshot (its last good state), unedited, with the model chosen.
  routes.post('/runs/:id/retry', async (c) => {
    const run = await findRun(c.req.param('id'))
    const input = await body(c.req.raw, z.object({ model: z.string().max(200).optional() }).strict())
    if (run.status !== 'failed')
      throw new RunStateConflictError(`[spindle/playground] run "${run.id}" is ${run.status}; only a failed run is retried (resume an interrupted one)`, {
        details: { runId: run.id, status: run.status },
      })
    return c.json(await replay({ runId: run.id, model: input.model, purpose: 'retry' }), 201)
  })

  // Two snapshots of a run: what changed in its state, and the log entries written between them.
  routes.get('/runs/:id/snapshots/diff', async (c) => {
    const run = await findRun(c.req.param('id'))
    const parsed = versions.safeParse(Object.fromEntries(new URL(c.req.url).searchParams))
    if (!parsed.success) throw new ApiError(400, 'bad_request', '[spindle/playground] give the two snapshot versions: ?from=<version>&to=<version>')
    const [from, to] = await Promise.all([runtime.snapshots.get(run.id, parsed.data.from), runtime.snapshots.get(run.id, parsed.data.to)])
    if (!from || !to) throw new NotFoundError(`[spindle/playground] run "${run.id}" has no snapshot version ${!from ? parsed.data.from : parsed.data.to}`)
    const [low, high] = [Number(from.state.lastSeq ?? 0), Number(to.state.lastSeq ?? 0)].sort((a, b) => a - b)
    const between = (await runtime.sessions.listEntries(run.sessionId, { before: high! + 1 })).filter((entry) => entry.seq > low!)
    return c.json({
      from: { version: from.version, step: from.state.step, createdAt: from.createdAt },
      to: { version: to.version, step: to.state.step, createdAt: to.createdAt },
      state: diffValues(from.state, to.state),
      entries: between.map(describeEntry),
      direction: Number(from.state.lastSeq ?? 0) <= Number(to.state.lastSeq ?? 0) ? 'added' : 'removed',
    })
  })

  // A fork (or replay, or retry) beside the session it came from: the two logs aligned, and the runtime states.
  routes.get('/sessions/:id/fork-diff', async (c) => {
    const id = c.req.param('id')
    const fork = idPattern.test(id) ? await runtime.sessions.getSession(id) : undefined
    if (!fork) throw new NotFoundError(`[spindle/playground] no session "${id.slice(0, 200)}"`)
    const origin = fork.metadata?.forkedFrom as { sessionId?: string; runId?: string; version?: number | null; step?: number; purpose?: string } | undefined
    if (!origin?.sessionId) throw new ApiError(404, 'not_a_fork', `[spindle/playground] session "${fork.id}" is not a fork: it has no parent to compare with`)
    const parent = await runtime.sessions.getSession(origin.sessionId)
    if (!parent) throw new NotFoundError(`[spindle/playground] the parent session "${origin.sessionId}" no longer exists`)
    const [parentEntries, forkEntries] = await Promise.all([runtime.sessions.listEntries(parent.id), runtime.sessions.listEntries(fork.id)])
    return c.json({
      parent: { sessionId: parent.id, title: parent.title, runId: origin.runId, version: origin.version, step: origin.step, purpose: origin.purpose ?? 'fork' },
      rows: diffConversations(parentEntries, forkEntries),
      runtimeState: diffValues(runtimeStateOf(parent.metadata), runtimeStateOf(fork.metadata)),
    })
  })
  return routes
}
