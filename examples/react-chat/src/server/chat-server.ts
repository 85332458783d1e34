// The example's Hono server: useChat's endpoints on a durable Spindle agent (SQLite), plus the built web app.
//   POST /api/chat                 a new user message starts a run; an answered approval resumes the suspended run
//   GET  /api/chat/:id/stream      useChat's `resume: true`: the chat's running run, replayed from its log, then live
//   GET  /api/chats/:id/messages   the chat so far, for a page (re)load
import { readFile } from 'node:fs/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { AgentRuntime, Extensions, SpindleError } from '@spindle/core'
import { approveAndResume, fromUIMessages, runEvents, streamDetached, toUIMessageStreamResponse } from '@spindle/ai-sdk'
import { sqliteStores } from '@spindle/store-sqlite'
import { createChatAgent, type SentEmail } from './chat-agent.js'
import { chatMessages, isActive } from './chat-history.js'
import type { ScriptedChatModelOptions } from './scripted-chat-model.js'

export interface ChatServerOptions {
  /** The SQLite file that keeps sessions, runs and their event logs. */
  databasePath: string
  /** The built web app (vite build's outDir) to serve; none in development (Vite serves it). */
  webRoot?: string
  /** The scripted model's pace. */
  model?: ScriptedChatModelOptions
}

export interface ChatServer {
  app: Hono
  runtime: AgentRuntime
  /** The emails the approved `send_email` calls "sent". */
  outbox: SentEmail[]
  /** Stops the worker and closes the database. */
  close(): Promise<void>
}

/**
 * The app and its runtime. Runs left `running` by a killed process are resumed at start.
 *
 * @example
 * const { app } = await createChatServer({ databasePath: '.data/chat.db', webRoot: 'dist/web' })
 */
export async function createChatServer(options: ChatServerOptions): Promise<ChatServer> {
  const extensions = new Extensions().use(sqliteStores({ path: options.databasePath }))
  const runtime = new AgentRuntime(extensions)
  const outbox: SentEmail[] = []
  const agent = createChatAgent({ outbox, ...(options.model && { model: options.model }) })
  await runtime.recover({ agents: [agent] })

  const app = new Hono()
  app.onError((error, c) => {
    const code = SpindleError.isInstance(error) ? error.code : undefined
    // A request that cannot run (bad body, the session busy, an approval already given) is the client's to fix.
    const status =
      code === 'admission_rejected' ? 400 : code === 'session_busy' || code === 'not_found' || code === 'configuration' || code === 'duplicate' ? 409 : 500
    return c.json({ error: error.message }, status)
  })

  app.post('/api/chat', async (c) => {
    const body = await c.req.json()
    const { input, approvals, chatId } = fromUIMessages(body)
    if (approvals.length > 0) return toUIMessageStreamResponse(approveAndResume(runtime, approvals, { agent }))
    // streamDetached: a reload mid-answer does not cancel the run; the page catches up through the stream endpoint.
    return toUIMessageStreamResponse(streamDetached(runtime, { sessionId: chatId, agent, input: input! }))
  })

  app.get('/api/chat/:id/stream', async (c) => {
    const [latest] = await runtime.runs.listRuns({ sessionId: c.req.param('id'), limit: 1 })
    // 204: nothing running, useChat keeps the messages it has.
    if (!latest || !isActive(latest)) return c.body(null, 204)
    return toUIMessageStreamResponse(runEvents(runtime, latest.id))
  })

  app.get('/api/chats/:id/messages', async (c) => c.json(await chatMessages(runtime, c.req.param('id'))))

  if (options.webRoot) app.get('*', webApp(options.webRoot))

  return {
    app,
    runtime,
    outbox,
    close: () => extensions.dispose(),
  }
}

/**
 * Listens on `port` (0: a free one) on 127.0.0.1.
 *
 * @example
 * const server = await startChatServer({ databasePath: ':memory:', webRoot: 'dist/web', port: 0 })
 * console.log(server.url)
 */
export async function startChatServer(options: ChatServerOptions & { port: number }): Promise<ChatServer & { url: string }> {
  const chat = await createChatServer(options)
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const listening = serve({ fetch: chat.app.fetch, port: options.port, hostname: '127.0.0.1' }, () => resolve(listening))
  })
  const { port } = server.address() as AddressInfo
  return {
    ...chat,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      const http = server as Server
      http.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await chat.close()
    },
  }
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

/** Serves the built app: its hashed assets, and index.html for every other path. */
function webApp(webRoot: string) {
  const root = normalize(webRoot) + sep
  return async (c: { req: { path: string }; body: (data: Uint8Array, status: 200 | 404, headers: Record<string, string>) => Response }): Promise<Response> => {
    const isAsset = c.req.path.startsWith('/assets/')
    const file = normalize(join(root, isAsset ? c.req.path : 'index.html'))
    if (!file.startsWith(root)) return c.body(new Uint8Array(), 404, {})
    try {
      return c.body(await readFile(file), 200, { 'content-type': contentTypes[extname(file)] ?? 'application/octet-stream' })
    } catch {
      return c.body(new TextEncoder().encode(`Not found. Build the app first: pnpm --filter @spindle/example-react-chat build`), 404, {
        'content-type': 'text/plain',
      })
    }
  }
}
