// One MCP client connection that can be restarted: a server that died (process exit, closed
// HTTP endpoint) is reconnected once on the next call; a call cut by the death fails clearly.
// It tells its owner when the server's tools may have changed: announced, or after a restart.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { createMcpScrubber, withoutSecrets, type McpScrubber } from './mcp-secrets.js'
import { McpToolError } from './mcp-tool-error.js'

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
}

const connectionClosedCode = -32000
const maxPages = 100
const requestTimeoutCode = -32001

export class McpConnection {
  #client: Client | undefined
  #connecting: Promise<Client> | undefined
  #dead = false
  #closed = false
  #generation = 0
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
    const timeout = AbortSignal.timeout(this.connectTimeoutMs)
    try {
      await client.connect(transport, { signal: timeout, timeout: this.connectTimeoutMs })
    } catch (error) {
      await client.close().catch(() => {})
      throw new McpToolError(
        'mcp_connect_failed',
        `could not connect to MCP server "${this.serverName}" (${this.#describeTarget()}): ${this.#scrub(messageOf(error))}`,
        { cause: this.scrubber.error(error), isRetryable: true },
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

  /** Calls a tool; restarts a dead server first (once), and reports a death during the call. */
  async callTool(toolName: string, args: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs: number }): Promise<unknown> {
    const label = `the tool "${toolName}" on MCP server "${this.serverName}"`
    let client: Client
    try {
      client = await this.connect()
    } catch (error) {
      if (McpToolError.isInstance(error) && error.code === 'mcp_closed') throw error
      throw new McpToolError('mcp_unavailable', `MCP server "${this.serverName}" is not available and could not be restarted: ${this.#scrub(messageOf(error))}`, { cause: this.scrubber.error(error), isRetryable: true })
    }
    try {
      // The SDK validates the result's shape (and structured output against the tool's outputSchema).
      return await client.callTool({ name: toolName, arguments: args }, undefined, { signal: options.signal, timeout: options.timeoutMs })
    } catch (error) {
      const code = (error as { code?: unknown }).code
      const cause = this.scrubber.error(error)
      if (options.signal?.aborted) throw new McpToolError('mcp_aborted', `the call to ${label} was cancelled`, { cause })
      if (code === requestTimeoutCode) {
        throw new McpToolError('mcp_timeout', `${label} did not answer within ${options.timeoutMs} ms; its outcome is unknown`, { cause })
      }
      if (code === connectionClosedCode || this.#dead || isTransportFailure(error)) {
        this.#dead = true
        throw new McpToolError(
          'mcp_connection_lost',
          `MCP server "${this.serverName}" went away during the call to ${label} (it may have crashed), so the outcome is unknown; the server will be restarted on the next call`,
          { cause, isRetryable: true },
        )
      }
      throw new McpToolError('mcp_protocol_error', `${label} failed: ${this.#scrub(messageOf(error))}`, { cause })
    }
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

/** Network-level failures (no JSON-RPC error code): the HTTP server is gone or the session was lost. */
function isTransportFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  if (typeof code === 'number' && code < 0) return false // a JSON-RPC error answered by the server
  const message = messageOf(error)
  return error instanceof TypeError || /ECONNREFUSED|ECONNRESET|fetch failed|socket hang up|Session not found|Error POSTing to endpoint \(HTTP (404|5\d\d)\)/i.test(message)
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
