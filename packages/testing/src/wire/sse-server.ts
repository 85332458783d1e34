// A scripted loopback HTTP + SSE server: each test queues the exact responses a wire protocol sends,
// and reads back the requests the real SDK client made. Shared by every provider's wire fixtures.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** One server-sent event. `data` that is not a string is JSON-encoded. */
export interface SseEvent {
  /** The `event:` field; omitted when undefined (Chat Completions sends data-only events). */
  event?: string
  data: unknown
  id?: string
  /** Waits this long before writing the event (on top of `eventDelayMs`). */
  delayMs?: number
}

/** How a scripted response ends once its events are written. */
export type ScriptedEnding =
  /** Ends the HTTP response cleanly (the default). */
  | 'close'
  /** Destroys the socket: the client sees a network error mid-body. */
  | 'destroy'
  /** Keeps the connection open with no more data until the client goes away or `close()` runs. */
  | 'hang'

/**
 * One scripted HTTP response.
 *
 * Exactly one body kind is used: `events` (an SSE stream, `content-type: text/event-stream`),
 * `json` (a JSON body), or `body` (raw text). With none, the body is empty.
 */
export interface ScriptedResponse {
  /** HTTP status, 200 by default. */
  status?: number
  headers?: Record<string, string>
  events?: SseEvent[]
  /**
   * How `events` are written: `sse` (default, `text/event-stream`) or `ndjson` (each event's `data` as one JSON
   * line, `application/x-ndjson`, as Ollama streams). Delays and endings work the same for both.
   */
  eventFormat?: 'sse' | 'ndjson'
  json?: unknown
  body?: string
  /** Waits before sending the status line and headers (a slow first byte). */
  firstByteDelayMs?: number
  /** Sends headers at once but waits this long before the first SSE event. */
  firstEventDelayMs?: number
  /** Waits between SSE events. */
  eventDelayMs?: number
  /** What happens after the last event; `close` by default. */
  ending?: ScriptedEnding
  /** Only requests matching this are served by this response (default: any). */
  match?: RequestMatcher
}

/** Which requests a scripted response answers (method and path). */
export interface RequestMatcher {
  method?: string
  /** Exact path (without query string) or a predicate on it. */
  path?: string | ((path: string) => boolean)
}

/** A request the server received, recorded before it was answered. */
export interface RecordedRequest {
  method: string
  /** Path without the query string. */
  path: string
  /** The full URL path with query string. */
  url: string
  headers: IncomingHttpHeaders
  rawBody: string
  /** The parsed JSON body, or `undefined` when the body was empty or not JSON. */
  body: any
  /** When the request arrived (ms since epoch). */
  receivedAt: number
  /** True once the client closed the connection before the response ended (e.g. an abort). */
  clientClosed: boolean
}

/** A scripted response computed from the request, for replies that depend on what the client sent. */
export type ScriptedHandler = (request: RecordedRequest, index: number) => ScriptedResponse | Promise<ScriptedResponse>

/** What `startScriptedServer` returns. */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` with no trailing slash. */
  readonly url: string
  readonly port: number
  /** Every request received, in order. */
  readonly requests: RecordedRequest[]
  /** Queues responses served in order to the next matching requests. */
  enqueue(...responses: ScriptedResponse[]): this
  /** Answers every request not served by the queue (the queue goes first). */
  setHandler(handler: ScriptedHandler | undefined): this
  /** Responses still queued (a test can assert all were used). */
  readonly pending: number
  /** Clears the queue, the handler and the recorded requests (between tests). */
  reset(): this
  /** Resolves once `count` requests were received (or rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>
  /** Stops listening and destroys open connections (hanging streams included). */
  close(): Promise<void>
}

/** Options of `startScriptedServer()`: the status served when nothing is scripted, and requests to refuse whatever is scripted (as the real API would). */
export interface ScriptedServerOptions {
  /** Status served when no response is queued and no handler is set (default 599, so tests notice). */
  unscriptedStatus?: number
  /**
   * Answers a request before the queue and the handler when it returns a response (the queue is left as it was):
   * what the real API refuses whatever is scripted, e.g. `openaiLoneSurrogateRejection`.
   */
  rejectRequest?: (request: RecordedRequest) => ScriptedResponse | undefined
}

/**
 * Starts a scripted HTTP/SSE server on 127.0.0.1 with an ephemeral port.
 *
 * @example
 * const server = await startScriptedServer()
 * server.enqueue({ events: [{ event: 'ping', data: { ok: true } }] })
 * const response = await fetch(`${server.url}/v1/anything`, { method: 'POST', body: '{}' })
 * expect(server.requests[0].path).toBe('/v1/anything')
 * await server.close()
 */
export async function startScriptedServer(options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const queue: ScriptedResponse[] = []
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  const waiters: Array<{ count: number; resolve: (requests: RecordedRequest[]) => void }> = []
  let handler: ScriptedHandler | undefined
  let closing = false

  const server: Server = createServer((incoming, outgoing) => {
    void serve(incoming, outgoing)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  async function serve(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of incoming) chunks.push(chunk as Buffer)
    const rawBody = Buffer.concat(chunks).toString('utf8')
    const url = incoming.url ?? '/'
    const recorded: RecordedRequest = {
      method: incoming.method ?? 'GET',
      path: url.split('?')[0] ?? '/',
      url,
      headers: incoming.headers,
      rawBody,
      body: parseJson(rawBody),
      receivedAt: Date.now(),
      clientClosed: false,
    }
    const index = requests.length
    requests.push(recorded)
    outgoing.on('close', () => {
      if (!outgoing.writableEnded) recorded.clientClosed = true
    })
    const satisfied = waiters.filter((waiter) => requests.length >= waiter.count)
    for (const waiter of satisfied) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(requests.slice())
    }
    // A request the real API refuses is refused before any script runs.
    let response: ScriptedResponse | undefined = options.rejectRequest?.(recorded)
    const queued = response ? -1 : queue.findIndex((candidate) => matches(candidate.match, recorded))
    if (queued >= 0) response = queue.splice(queued, 1)[0]
    else if (!response && handler) {
      try {
        response = await handler(recorded, index)
      } catch (error) {
        response = { status: 500, json: { error: { message: `scripted handler threw: ${(error as Error)?.message ?? error}` } } }
      }
    }
    response ??= {
      status: options.unscriptedStatus ?? 599,
      json: { error: { message: `[spindle/testing] no scripted response for ${recorded.method} ${recorded.path} (request #${index}); enqueue one` } },
    }
    try {
      await write(response, outgoing)
    } catch {
      // The client went away mid-response; nothing to do.
    }
  }

  async function write(response: ScriptedResponse, outgoing: ServerResponse): Promise<void> {
    if (response.firstByteDelayMs) await delay(response.firstByteDelayMs)
    if (outgoing.destroyed) return
    const status = response.status ?? 200
    const headers: Record<string, string> = { ...response.headers }
    if (response.events) {
      const ndjson = response.eventFormat === 'ndjson'
      const contentType = ndjson ? 'application/x-ndjson' : 'text/event-stream'
      outgoing.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-cache', connection: 'keep-alive', ...headers })
      outgoing.flushHeaders()
      if (response.firstEventDelayMs) await delay(response.firstEventDelayMs)
      for (const [position, event] of response.events.entries()) {
        const wait = (event.delayMs ?? 0) + (position > 0 ? (response.eventDelayMs ?? 0) : 0)
        if (wait) await delay(wait)
        if (outgoing.destroyed) return
        outgoing.write(ndjson ? encodeNdjsonLine(event.data) : encodeSseEvent(event))
      }
    } else {
      let body = ''
      if (response.json !== undefined) {
        body = JSON.stringify(response.json)
        headers['content-type'] ??= 'application/json'
      } else if (response.body !== undefined) body = response.body
      outgoing.writeHead(status, headers)
      if (response.ending === 'destroy' || response.ending === 'hang') {
        // Send half the body, then cut or stall, to test a body interrupted mid-way.
        outgoing.write(body.slice(0, Math.floor(body.length / 2)))
      } else {
        outgoing.end(body)
        return
      }
    }
    switch (response.ending ?? 'close') {
      case 'close':
        outgoing.end()
        return
      case 'destroy':
        // Let the written bytes reach the client before the reset.
        await delay(5)
        outgoing.socket?.destroy()
        return
      case 'hang':
        return
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port

  const api: ScriptedServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    enqueue(...responses) {
      queue.push(...responses)
      return api
    },
    setHandler(next) {
      handler = next
      return api
    },
    get pending() {
      return queue.length
    },
    reset() {
      queue.length = 0
      requests.length = 0
      handler = undefined
      return api
    },
    waitForRequests(count, timeoutMs = 5_000) {
      if (requests.length >= count) return Promise.resolve(requests.slice())
      return new Promise((resolve, reject) => {
        const waiter = {
          count,
          resolve: (received: RecordedRequest[]) => {
            clearTimeout(timer)
            resolve(received)
          },
        }
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1)
          reject(new Error(`[spindle/testing] waited ${timeoutMs} ms for ${count} request(s), got ${requests.length}`))
        }, timeoutMs)
        waiters.push(waiter)
      })
    },
    async close() {
      if (closing) return
      closing = true
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return api
}

/** Encodes one event in the `text/event-stream` format (`event:`, `id:`, `data:` lines, blank line). */
export function encodeSseEvent(event: SseEvent): string {
  let text = ''
  if (event.event !== undefined) text += `event: ${event.event}\n`
  if (event.id !== undefined) text += `id: ${event.id}\n`
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data)
  for (const line of data.split('\n')) text += `data: ${line}\n`
  return `${text}\n`
}

/** Encodes one NDJSON line: a string is written as is, anything else JSON-encoded; then a newline. */
export function encodeNdjsonLine(data: unknown): string {
  return `${typeof data === 'string' ? data : JSON.stringify(data)}\n`
}

function matches(matcher: RequestMatcher | undefined, request: RecordedRequest): boolean {
  if (!matcher) return true
  if (matcher.method && matcher.method.toUpperCase() !== request.method.toUpperCase()) return false
  if (matcher.path !== undefined) {
    if (typeof matcher.path === 'string' ? matcher.path !== request.path : !matcher.path(request.path)) return false
  }
  return true
}

function parseJson(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
