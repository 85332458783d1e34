// The JSON API: sessions, runs, run detail, messages (start a run) and their queue, approvals, cancel / kill / resume,
// fork, SSE.
import { type RunRecord, type RunStatus, type SessionRecord, SpindleError } from '@spindle/core'
import { Hono } from 'hono'
import { z } from 'zod'
import type { Spindle } from './compose-spindle.js'
import { createDebuggerApi } from './debugger-api.js'
import { createReplayApi } from './replay-api.js'
import type { RunManager } from './run-manager.js'
import { BodyTooLargeError, readBodyText } from './request-body.js'
import { runEventsStream } from './run-events-stream.js'
import { newSessionId } from './session-id.js'

const idSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\w:.-]+$/, 'ids are letters, digits, _ : . -')
const listQuery = z.object({ q: z.string().max(200).optional(), limit: z.coerce.number().int().min(1).max(500).default(100) })
const runStatuses = ['queued', 'running', 'suspended', 'completed', 'failed', 'cancelled', 'interrupted'] as const
/** The longest message, counted after trimming (the UI is told it through `/config`). */
export const maxMessageChars = 20_000
/** The largest request body: well above the longest message (20,000 UTF-16 units, each at most 6 bytes as JSON). */
export const maxBodyBytes = 1024 * 1024
const messageInput = z.object({ text: z.string().trim().min(1, 'the message is empty').max(maxMessageChars), model: z.string().max(200).optional() }).strict()

/** Kernel and playground error codes of a well-formed request that conflicts with the current state. */
const conflictCodes = new Set<string>(['session_busy', 'conflict', 'duplicate'])

export class ApiError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 413 | 500,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** Reads a JSON request body and validates it with `schema` (413 when too large, 400 when not JSON or invalid). */
export async function body<T>(request: Request, schema: z.ZodType<T>): Promise<T> {
  let text: string
  try {
    text = await readBodyText(request, maxBodyBytes)
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new ApiError(413, 'body_too_large', error.message)
    throw new ApiError(400, 'bad_body', '[spindle/playground] the request body could not be read (the client stopped sending it?)')
  }
  let raw: unknown
  try {
    raw = text ? JSON.parse(text) : {}
  } catch {
    throw new ApiError(400, 'bad_json', '[spindle/playground] the request body is not valid JSON')
  }
  const parsed = schema.safeParse(raw)
  if (!parsed.success) throw new ApiError(400, 'bad_request', `[spindle/playground] ${describeIssues(parsed.error)}`)
  return parsed.data
}

function param(value: string | undefined, name: string): string {
  const parsed = idSchema.safeParse(value)
  if (!parsed.success) throw new ApiError(400, 'bad_request', `[spindle/playground] ${name}: ${describeIssues(parsed.error)}`)
  return parsed.data
}

function query<T>(url: string, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(Object.fromEntries(new URL(url).searchParams))
  if (!parsed.success) throw new ApiError(400, 'bad_request', `[spindle/playground] ${describeIssues(parsed.error)}`)
  return parsed.data
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`).join('; ')
}

function matches(needle: string | undefined, ...haystack: unknown[]): boolean {
  if (!needle) return true
  const lower = needle.toLowerCase()
  return haystack.some((value) => value !== undefined && (typeof value === 'string' ? value : JSON.stringify(value)).toLowerCase().includes(lower))
}

export function createApi(spindle: Spindle, manager: RunManager): Hono {
  const { runtime } = spindle
  const api = new Hono()

  api.onError((error, c) => {
    if (error instanceof ApiError) return c.json({ error: { code: error.code, message: error.message } }, error.status)
    if (SpindleError.isInstance(error)) {
      // 400: the request itself is wrong (unknown model, refused input); 409: it is well formed, but the current state
      // of the session or run does not allow it (busy, already decided, already ended).
      const status =
        error.code === 'not_found'
          ? 404
          : error.code === 'configuration' || error.code === 'admission_rejected'
            ? 400
            : conflictCodes.has(error.code)
              ? 409
              : 500
      return c.json({ error: { code: error.code, message: error.message } }, status)
    }
    return c.json({ error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } }, 500)
  })

  const getRun = async (id: string): Promise<RunRecord> => {
    const run = await runtime.runs.getRun(param(id, 'run id'))
    if (!run) throw new ApiError(404, 'not_found', `[spindle/playground] no run "${id}"`)
    return run
  }
  const getSession = async (id: string): Promise<SessionRecord> => {
    const session = await runtime.sessions.getSession(param(id, 'session id'))
    if (!session) throw new ApiError(404, 'not_found', `[spindle/playground] no session "${id}"`)
    return session
  }
  // The gate's queue, plus the messages the manager holds while the session's last run is unfinished.
  const gateState = async (sessionId: string) => {
    const gate = await runtime.sessionGate.state(sessionId)
    return { ...gate, queued: gate.queued + manager.waiting(sessionId) }
  }
  const runSummary = (run: RunRecord) => ({
    id: run.id,
    sessionId: run.sessionId,
    status: run.status,
    finishReason: run.finishReason,
    step: run.step,
    usage: run.usage,
    error: run.error,
    model: (run.request.agent as { model?: string } | undefined)?.model,
    input: run.request.input,
    ticket: typeof run.metadata.ticket === 'string' ? run.metadata.ticket : undefined,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
  })

  api.get('/config', (c) =>
    c.json({
      models: spindle.models,
      store: spindle.storeKind,
      tools: Object.keys(spindle.tools),
      sandbox: 'sandbox/ in the data folder',
      limits: { messageChars: maxMessageChars },
    }),
  )

  api.get('/sessions', async (c) => {
    const { q, limit } = query(c.req.url, listQuery)
    const [sessions, suspended, interrupted] = await Promise.all([
      runtime.sessions.listSessions({ limit: q ? 500 : limit }),
      runtime.runs.listRuns({ status: 'suspended', limit: 500 }),
      runtime.runs.listRuns({ status: 'interrupted', limit: 500 }),
    ])
    // A session whose run waits for a decision or a resume is flagged in the list (`attention`).
    const attention = new Map<string, string>([
      ...interrupted.map((run) => [run.sessionId, 'interrupted'] as const),
      ...suspended.map((run) => [run.sessionId, 'awaiting approval'] as const),
    ])
    const listed = sessions.filter((session) => matches(q, session.id, session.title, session.metadata)).slice(0, limit)
    return c.json({ sessions: listed.map((session) => ({ ...session, attention: attention.get(session.id) })) })
  })

  api.post('/sessions', async (c) => {
    const input = await body(c.req.raw, z.object({ title: z.string().max(200).optional() }).strict())
    const session = await runtime.sessions.createSession({ id: newSessionId(), title: input.title, metadata: {} })
    return c.json({ session }, 201)
  })

  api.get('/sessions/:id', async (c) => {
    const session = await getSession(c.req.param('id'))
    return c.json({ session, gate: await gateState(session.id) })
  })

  api.get('/sessions/:id/messages', async (c) => {
    const session = await getSession(c.req.param('id'))
    const entries = await runtime.sessions.listEntries(session.id, { kind: 'message' })
    return c.json({ entries })
  })

  api.get('/sessions/:id/gate', async (c) => {
    const session = await getSession(c.req.param('id'))
    return c.json({ gate: await gateState(session.id) })
  })

  // The messages taken but not started yet (the session is busy): a page reloaded meanwhile shows them queued.
  api.get('/sessions/:id/queue', async (c) => {
    const session = await getSession(c.req.param('id'))
    return c.json({ messages: manager.queued(session.id) })
  })

  // Withdraws a queued message: it leaves the queue and never runs (409 once its run has started).
  api.delete('/sessions/:id/queue/:ticket', async (c) => {
    const session = await getSession(c.req.param('id'))
    await manager.withdraw(session.id, param(c.req.param('ticket'), 'ticket'))
    return c.json({ withdrawn: true })
  })

  api.get('/sessions/:id/runs', async (c) => {
    const session = await getSession(c.req.param('id'))
    const runs = await runtime.runs.listRuns({ sessionId: session.id, limit: 200 })
    return c.json({ runs: runs.map(runSummary) })
  })

  api.post('/sessions/:id/messages', async (c) => {
    const session = await getSession(c.req.param('id'))
    const input = await body(c.req.raw, messageInput)
    const started = await manager.start({ sessionId: session.id, text: input.text, model: input.model ?? spindle.models[0]!.id })
    return c.json(started, 202)
  })

  // A new session's first message: the session is created with its run, so a refused message leaves no empty session.
  api.post('/messages', async (c) => {
    const input = await body(c.req.raw, messageInput)
    const started = await manager.start({ text: input.text, model: input.model ?? spindle.models[0]!.id })
    return c.json(started, 202)
  })

  api.get('/runs', async (c) => {
    const { q, limit, status, sessionId } = query(c.req.url, listQuery.extend({ status: z.enum(runStatuses).optional(), sessionId: idSchema.optional() }))
    const runs = await runtime.runs.listRuns({ sessionId, status: status as RunStatus | undefined, limit: q ? 500 : limit })
    return c.json({
      runs: runs
        .filter((run) => matches(q, run.id, run.sessionId, run.status, run.finishReason, run.request))
        .slice(0, limit)
        .map(runSummary),
    })
  })

  api.get('/runs/:id', async (c) => {
    const run = await getRun(c.req.param('id'))
    const [events, snapshots, journal, gate] = await Promise.all([
      runtime.runs.listEvents(run.id),
      runtime.snapshots.list(run.id),
      runtime.executions.listByRun(run.id),
      gateState(run.sessionId),
    ])
    return c.json({
      run: { ...runSummary(run), request: run.request, lease: run.lease, metadata: run.metadata },
      events,
      snapshots,
      journal,
      gate,
      backgroundError: manager.errors.get(run.id),
    })
  })

  api.get('/runs/:id/events', async (c) => {
    const run = await getRun(c.req.param('id'))
    const raw = c.req.header('last-event-id') ?? c.req.query('after') ?? '0'
    const after = Number(raw)
    if (!Number.isInteger(after) || after < 0)
      throw new ApiError(400, 'bad_request', `[spindle/playground] Last-Event-ID must be a non-negative integer (got "${raw}")`)
    return runEventsStream(c, runtime, spindle.liveEvents, run.id, after)
  })

  const decision = z.object({ callId: z.string().min(1).max(200), approved: z.boolean(), reason: z.string().max(2000).optional() }).strict()
  api.post('/runs/:id/approve', async (c) => {
    const run = await getRun(c.req.param('id'))
    const input = await body(c.req.raw, decision)
    await manager.approve(run.id, input.callId, { approved: input.approved, reason: input.reason })
    return c.json({ ok: true })
  })

  api.post('/runs/:id/cancel', async (c) => {
    const run = await getRun(c.req.param('id'))
    return c.json({ cancelled: await manager.cancel(run.id) })
  })

  api.post('/runs/:id/kill', async (c) => {
    const run = await getRun(c.req.param('id'))
    return c.json({ killed: true, ...(await manager.kill(run.id)) })
  })

  api.post('/runs/:id/resume', async (c) => {
    const run = await getRun(c.req.param('id'))
    await manager.resume(run.id)
    return c.json({ resumed: true }, 202)
  })

  api.post('/runs/:id/fork', async (c) => {
    const run = await getRun(c.req.param('id'))
    const input = await body(c.req.raw, z.object({ version: z.number().int().min(0) }).strict())
    return c.json(await manager.fork(run.id, input.version), 201)
  })

  // The debugger's routes (model calls, run file, run tree, agents, session overview): debugger-api.ts.
  api.route('/', createDebuggerApi(spindle))
  // Edit and replay, retry a failed run, and diffs (snapshots, fork vs parent): replay-api.ts.
  api.route('/', createReplayApi(spindle, manager))

  api.all('*', (c) =>
    c.json({ error: { code: 'not_found', message: `[spindle/playground] no API route ${c.req.method} ${new URL(c.req.url).pathname}` } }, 404),
  )
  return api
}
