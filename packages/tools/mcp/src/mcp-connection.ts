// One MCP client connection that can be restarted: a server that died (process exit, closed
// HTTP endpoint) is reconnected once on the next call; a call cut by the death fails clearly.
// It tells its owner when the server's tools may have changed: announced, or after a restart.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ConnectionLost, isSessionRejected, isStreamLoss, isTransportFailure, isUnreachable } from './mcp-call-errors.js'
import { createMcpScrubber, withoutSecrets, type McpScrubber } from './mcp-secrets.js'
import { callToolAsTask, progressUpdate, type McpProgressUpdate } from './mcp-task-call.js'
import { McpToolError } from './mcp-tool-error.js'

/** How to reach an MCP server: a command to start over stdio, or the URL of a streamable HTTP endpoint. */
export type McpTransportOptions =
  | {
      type: 'stdio'
      command: string
      args?: string[]
      /** Extra environment variables (merged over the SDK's safe default environment). */
      env?: Record<string, string>
      cwd?: string
      /** What to do with the server's stderr (default `inherit`). */
      stderr?: 'inherit' | 'ignore'
    }
  | {
      type: 'http'
      url: string
      headers?: Record<string, string>
      fetch?: typeof fetch
    }

export interface McpServerTool {
  name: string
  description?: string
  inputSchema?: unknown
  annotations?: Record<string, unknown>
  execution?: { taskSupport?: string }
}

export interface McpCallOptions {
  signal?: AbortSignal
  /** Longest wait for an answer or a progress report. */
  timeoutMs: number
  /** Longest call, progress or not. */
  maxTotalTimeoutMs: number
  /** Call as a task (the tool's `execution.taskSupport` is `required`). */
  task: boolean
  onProgress?: (update: McpProgressUpdate) => void
}

const connectionClosedCode = -32000
const maxPages = 100
const requestTimeoutCode = -32001
const pingTimeoutMs = 2_000

export class McpConnection {
  #client: Client | undefined
  #connecting: Promise<Client> | undefined
  #dead = false
  #closed = false
  #generation = 0
  /** One controller per call in flight: aborted with ConnectionLost when the transport reports its stream gone. */
  readonly #inFlight = new Set<AbortController>()
  /** Scrubs the transport's credentials (headers, env, URL query) from error messages and causes. */
  readonly scrubber: McpScrubber

  constructor(
    readonly serverName: string,
    private readonly transportOptions: McpTransportOptions,
    private readonly connectTimeoutMs: number,
    /** Called when the server's tools may have changed: it sent `notifications/tools/list_changed`, or it was restarted. */
    private readonly onToolsChanged?: () => void,
  ) {
    this.scrubber = createMcpScrubber(transportOptions)
  }

  /** How many times a connection was established (1 after the first connect; more after restarts). */
  get generation(): number {
    return this.#generation
  }

  get serverVersion(): { name: string; version: string } | undefined {
    const info = this.#client?.getServerVersion()
    return info ? { name: info.name, version: info.version } : undefined
  }

  async connect(): Promise<Client> {
    if (this.#closed) throw new McpToolError('mcp_closed', `the connection to MCP server "${this.serverName}" was closed; create the tools again`)
    if (this.#client && !this.#dead) return this.#client
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined
    })
    return this.#connecting
  }

  async #open(): Promise<Client> {
    const previous = this.#client
    this.#client = undefined
    if (previous) await previous.close().catch(() => {})
    const transport = this.#createTransport()
    const client = new Client(
      { name: 'spindle-tools-mcp', version: '0.0.0' },
      {
        capabilities: {},
        // Subscribed only when the server advertises tools.listChanged. The owner lists the tools itself
        // (every page; the SDK's refresh reads only the first one).
        listChanged: { tools: { autoRefresh: false, onChanged: () => this.onToolsChanged?.() } },
      },
    )
    client.onclose = () => {
      if (this.#client === client) this.#dead = true
    }
    // A Streamable HTTP server killed mid-call: the SDK reports the broken stream here, and nothing else would end
    // the calls waiting on it before their time limit. A stream can also be cut by a proxy while the server lives:
    // a ping tells the two apart, and only a server that does not answer it ends the calls.
    let probing = false
    client.onerror = (error) => {
      if (this.#client !== client || probing || !isStreamLoss(error) || this.#inFlight.size === 0) return
      probing = true
      client.ping({ timeout: pingTimeoutMs }).then(
        () => {
          probing = false
        },
        () => {
          probing = false
          if (this.#client !== client) return
          this.#dead = true
          for (const call of this.#inFlight) call.abort(new ConnectionLost(this.scrubber.error(error)))
        },
      )
    }
    const timeout = AbortSignal.timeout(this.connectTimeoutMs)
    try {
      await client.connect(transport, { signal: timeout, timeout: this.connectTimeoutMs })
    } catch (error) {
      await client.close().catch(() => {})
      throw new McpToolError(
        'mcp_connect_failed',
        `could not connect to MCP server "${this.serverName}" (${this.#describeTarget()}): ${this.#scrub(messageOf(error))}`,
        { cause: this.scrubber.error(error), isRetryable: true, details: { reason: this.#scrub(messageOf(error)) } },
      )
    }
    if (this.#closed) {
      // close() ran while this connection was being opened: nobody would ever stop this server.
      await this.#shutdown(client)
      throw new McpToolError('mcp_closed', `the connection to MCP server "${this.serverName}" was closed; create the tools again`)
    }
    this.#client = client
    this.#dead = false
    this.#generation++
    // A restarted server may offer other tools than the one that died.
    if (this.#generation > 1) this.onToolsChanged?.()
    return client
  }

  #createTransport(): Transport {
    const options = this.transportOptions
    if (options.type === 'stdio') {
      return new StdioClientTransport({ command: options.command, args: options.args, env: options.env, cwd: options.cwd, stderr: options.stderr ?? 'inherit' })
    }
    return new StreamableHTTPClientTransport(new URL(options.url), {
      requestInit: options.headers ? { headers: options.headers } : undefined,
      fetch: options.fetch,
    })
  }

  /** The server, as error messages name it: an HTTP URL without its query (tokens often ride there) or credentials. */
  #describeTarget(): string {
    const options = this.transportOptions
    return options.type === 'stdio' ? `command ${options.command}` : withoutSecrets(options.url)
  }

  /** A message with the full URL replaced by its safe form and the transport's credentials removed. */
  #scrub(message: string): string {
    return this.scrubber.text(message)
  }

  async listTools(): Promise<McpServerTool[]> {
    const client = await this.connect()
    const tools: McpServerTool[] = []
    let cursor: string | undefined
    // Cursors are opaque; one seen before means the server is paging in a loop: what was listed is all there is.
    const cursors = new Set<string>()
    for (let page = 0; page < maxPages; page++) {
      const listed = await client.listTools(cursor === undefined ? undefined : { cursor })
      tools.push(...(listed.tools as McpServerTool[]))
      cursor = listed.nextCursor
      if (cursor === undefined || cursors.has(cursor)) break
      cursors.add(cursor)
    }
    return tools
  }

  /**
   * Calls a tool; restarts a dead server first (once). A Streamable HTTP session the server no longer knows is
   * re-initialized and the call sent again (once): the server refused it before running it.
   */
  async callTool(toolName: string, args: Record<string, unknown>, options: McpCallOptions): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.#connectForCall()
      try {
        return await this.#invoke(client, toolName, args, options)
      } catch (error) {
        if (attempt === 0 && isSessionRejected(error) && !options.signal?.aborted) {
          this.#markDead(client)
          continue
        }
        throw error
      }
    }
  }

  async #connectForCall(): Promise<Client> {
    try {
      return await this.connect()
    } catch (error) {
      if (McpToolError.isInstance(error) && error.code === 'mcp_closed') throw error
      const reason = McpToolError.isInstance(error) && error.details?.reason !== undefined ? String(error.details.reason) : this.#scrub(messageOf(error))
      throw new McpToolError(
        'mcp_unavailable',
        `could not connect to MCP server "${this.serverName}" (${this.#describeTarget()}) to restart it: ${reason}; the call was not made`,
        {
          cause: this.scrubber.error(error),
          isRetryable: true,
        },
      )
    }
  }

  async #invoke(client: Client, toolName: string, args: Record<string, unknown>, options: McpCallOptions): Promise<unknown> {
    const label = `the tool "${toolName}" on MCP server "${this.serverName}"`
    const lost = new AbortController()
    // A task is polled by several requests: its total time is bounded here, not by one request's timer.
    const total = options.task ? AbortSignal.timeout(options.maxTotalTimeoutMs) : undefined
    const signal = AbortSignal.any([lost.signal, ...(options.signal ? [options.signal] : []), ...(total ? [total] : [])])
    this.#inFlight.add(lost)
    try {
      if (options.task)
        return await callToolAsTask(client, toolName, args, {
          signal,
          timeoutMs: options.timeoutMs,
          ttlMs: options.maxTotalTimeoutMs,
          onProgress: options.onProgress,
        })
      // The SDK validates the result's shape (and structured output against the tool's outputSchema). A progress
      // token goes with the call; each progress report restarts the time limit, up to maxTotalTimeoutMs.
      return await client.callTool({ name: toolName, arguments: args }, undefined, {
        signal,
        timeout: options.timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: options.maxTotalTimeoutMs,
        onprogress: (progress) => options.onProgress?.(progressUpdate(progress)),
      })
    } catch (error) {
      if (isSessionRejected(error)) throw error
      const code = (error as { code?: unknown }).code
      const cause = this.scrubber.error(lost.signal.aborted ? lost.signal.reason : error)
      if (options.signal?.aborted) throw new McpToolError('mcp_aborted', `the call to ${label} was cancelled`, { cause })
      // Checked before the timeouts: the SDK reports an aborted request as a RequestTimeout error.
      if (lost.signal.aborted) throw this.#connectionLost(toolName, cause)
      if (total?.aborted || (code === requestTimeoutCode && (error as { data?: { maxTotalTimeout?: unknown } }).data?.maxTotalTimeout !== undefined)) {
        throw new McpToolError('mcp_timeout', `${label} did not finish within the total limit of ${options.maxTotalTimeoutMs} ms; its outcome is unknown`, {
          cause,
        })
      }
      if (code === requestTimeoutCode) {
        throw new McpToolError('mcp_timeout', `${label} sent neither an answer nor progress for ${options.timeoutMs} ms; its outcome is unknown`, { cause })
      }
      if (isUnreachable(error)) {
        this.#markDead(client)
        throw new McpToolError(
          'mcp_unavailable',
          `could not connect to MCP server "${this.serverName}" (${this.#describeTarget()}): ${this.#scrub(messageOf(error))}; the call was not made, and the server will be reconnected on the next call`,
          {
            cause,
            isRetryable: true,
          },
        )
      }
      // A cut HTTP request (a stale keep-alive socket the server closed, or a crash): a server that now refuses
      // connections is down, and the request most likely met a socket it had already closed.
      if (isTransportFailure(error) && this.transportOptions.type === 'http' && (await this.#refusesConnections(client))) {
        this.#markDead(client)
        throw new McpToolError(
          'mcp_unavailable',
          `could not connect to MCP server "${this.serverName}" (${this.#describeTarget()}): it refuses connections, so the call most likely never reached it; the server will be reconnected on the next call`,
          {
            cause,
            isRetryable: true,
          },
        )
      }
      if (code === connectionClosedCode || this.#dead || isTransportFailure(error)) {
        this.#markDead(client)
        throw this.#connectionLost(toolName, cause)
      }
      throw new McpToolError('mcp_protocol_error', `${label} failed: ${this.#scrub(messageOf(error))}`, { cause })
    } finally {
      this.#inFlight.delete(lost)
    }
  }

  #connectionLost(toolName: string, cause: unknown): McpToolError {
    return new McpToolError(
      'mcp_connection_lost',
      `the connection to MCP server "${this.serverName}" was lost during the call to its tool "${toolName}" (the server may have crashed), so the outcome is unknown; the server will be restarted on the next call`,
      { cause, isRetryable: true },
    )
  }

  async #refusesConnections(client: Client): Promise<boolean> {
    try {
      await client.ping({ timeout: pingTimeoutMs })
      return false
    } catch (error) {
      return isUnreachable(error)
    }
  }

  #markDead(client: Client): void {
    if (this.#client === client) this.#dead = true
  }

  async close(): Promise<void> {
    this.#closed = true
    const client = this.#client
    this.#client = undefined
    if (client) await this.#shutdown(client)
    // A connection being opened now is stopped by #open itself, once it is up.
    await this.#connecting?.catch(() => {})
  }

  /** Ends the HTTP session on the server (DELETE, as the spec asks of a client that is done), then closes. */
  async #shutdown(client: Client): Promise<void> {
    const transport = client.transport
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId && !this.#dead) {
      await withTimeout(transport.terminateSession(), 5_000).catch(() => {})
    }
    await client.close().catch(() => {})
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
