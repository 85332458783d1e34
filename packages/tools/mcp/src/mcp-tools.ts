// mcpTools(): connects to an MCP server and exposes each of its tools as a Spindle tool, kept
// current when the server's tools change (in its `tools` record and in the registries it was set up in as a
// plugin). The server's annotations (readOnlyHint, destructiveHint…) are untrusted: the operator's options decide
// effect, approval and idempotency.
import { defineTool, jsonSchema, toolNamePattern, type Extensions, type JsonSchema, type Plugin, type Tool, type ToolEffect } from '@spindle/core'
import { checkJsonSchema } from './json-schema-check.js'
import { toCallResult, type McpCallResult } from './mcp-content.js'
import { checkMcpToolsOptions } from './mcp-options.js'
import { McpConnection, type McpServerTool, type McpTransportOptions } from './mcp-connection.js'
import type { McpProgressUpdate } from './mcp-task-call.js'
import { McpToolError } from './mcp-tool-error.js'
import { ToolRegistrySync } from './tool-registry-sync.js'

/** What the operator's callbacks see about a server tool (annotations included, as untrusted hints). */
export interface McpToolInfo {
  server: string
  name: string
  description: string
  inputSchema: JsonSchema
  annotations: Record<string, unknown> | undefined
  /** The server's `execution.taskSupport`: `required` tools are called as tasks (polled until they end). */
  taskSupport: 'required' | 'optional' | 'forbidden' | undefined
}

/** A progress report of a call in flight, passed to `onProgress`. */
export interface McpToolProgress extends McpProgressUpdate {
  server: string
  /** The server's name of the tool. */
  tool: string
  /** The name the model called. */
  toolName: string
  runId: string
  callId: string
}

type PerTool<T> = T | ((tool: McpToolInfo) => T)

type McpTool = Tool<Record<string, unknown>, McpCallResult>

/** Options of `mcpTools()`: the transport (stdio or streamable HTTP), the server's short name (the tools' prefix), which tools to expose, their effect, approval and idempotency, timeouts and progress. */
export interface McpToolsOptions {
  transport: McpTransportOptions
  /** A short server name; tool names become `${name}_${tool}`. */
  name: string
  /** Effect class of every tool (default `external`), or decided per tool. */
  effect?: PerTool<ToolEffect>
  /** Ask a human before each call (default: true unless the operator's effect is `read`). */
  needsApproval?: PerTool<boolean>
  /** Safe to re-run on resume (default false). */
  idempotent?: PerTool<boolean>
  /** Which server tools to expose: a list of server tool names, or a predicate. */
  toolFilter?: readonly string[] | ((tool: McpToolInfo) => boolean)
  /**
   * Longest wait for an answer or a progress report (default 60 s): each progress report the server sends
   * (`notifications/progress`, for which each call carries a `progressToken`) starts this wait again.
   */
  timeoutMs?: number
  /** Longest call, however much progress it reports (default 10 minutes, or `timeoutMs` if longer). */
  maxTotalTimeoutMs?: number
  /** Called with each progress report of a call in flight (and each status of a task-based call). */
  onProgress?: (progress: McpToolProgress) => void
  /** Time allowed to connect and initialize (default 20 s). */
  connectTimeoutMs?: number
  /** Longest server description passed on to the model (default 2000 characters). */
  maxDescriptionChars?: number
}

/**
 * The tools of one MCP server. It is also a plugin: `extensions.use(toolSet)` registers the tools in
 * `extensions.tools` (kept current when the server's tools change) and `extensions.dispose()` closes the server.
 */
export interface McpToolSet extends Plugin {
  /** The server name given in the options (also the plugin's name). */
  readonly name: string
  /**
   * The Spindle tools, keyed by the name the model sees. Updated in place (the same object) when the server
   * announces a change (`notifications/tools/list_changed`) and after it was restarted.
   */
  readonly tools: Record<string, Tool<Record<string, unknown>, McpCallResult>>
  /** The server tools behind them: model-facing name → server tool name (updated with `tools`). */
  readonly serverToolNames: Record<string, string>
  readonly serverInfo: { name: string; version: string } | undefined
  /** How many times the server was (re)connected. */
  readonly connections: number
  /** Registers the tools in `extensions.tools` and keeps them current there (called by `extensions.use()`). */
  setup(extensions: Extensions): void
  /** Closes the server (called by `extensions.dispose()`). */
  dispose(): Promise<void>
  close(): Promise<void>
}

/**
 * Connects to an MCP server and wraps its tools.
 *
 * @example
 * const github = await mcpTools({ name: 'gh', transport: { type: 'stdio', command: 'github-mcp' }, toolFilter: ['search_issues'] })
 * await runtime.run({ input, agent: { model, tools: github.tools } })
 * await github.close()
 * // or as a plugin: the tools go to extensions.tools, and extensions.dispose() closes the server
 * extensions.use(await mcpTools({ name: 'gh', transport: { type: 'stdio', command: 'github-mcp' } }))
 */
export async function mcpTools(options: McpToolsOptions): Promise<McpToolSet> {
  checkMcpToolsOptions(options)
  const tools: Record<string, McpTool> = {}
  const serverToolNames: Record<string, string> = {}
  const registries = new ToolRegistrySync(options.name)
  // In place, so an agent holding `tools` gets the server's current tools in its next run.
  const expose = (serverTools: McpServerTool[]) => {
    const next: Record<string, McpTool> = {}
    const nextNames: Record<string, string> = {}
    const seen = new Set<string>()
    for (const serverTool of serverTools) {
      // A tool listed twice (a server that repeats a page) is exposed once.
      if (seen.has(String(serverTool.name))) continue
      seen.add(String(serverTool.name))
      const info: McpToolInfo = {
        server: options.name,
        name: String(serverTool.name),
        description: typeof serverTool.description === 'string' ? serverTool.description : '',
        inputSchema: normalizeInputSchema(serverTool.inputSchema),
        annotations: typeof serverTool.annotations === 'object' && serverTool.annotations !== null ? { ...serverTool.annotations } : undefined,
        taskSupport: taskSupportOf(serverTool),
      }
      if (!passesFilter(options.toolFilter, info)) continue
      const modelName = uniqueName(prefixedToolName(options.name, info.name), next)
      next[modelName] = wrapTool(info, modelName, connection, options)
      nextNames[modelName] = info.name
    }
    replaceEntries(tools, next)
    replaceEntries(serverToolNames, nextNames)
    registries.update(tools)
  }
  // Listings after a change run one after another, so the last one wins.
  let relisting = Promise.resolve()
  const relist = () => {
    relisting = relisting.then(async () => {
      try {
        expose(await connection.listTools())
      } catch {
        // Nobody awaits this listing: the tools stay as they were until the next change or restart.
      }
    })
  }
  const connection = new McpConnection(options.name, options.transport, options.connectTimeoutMs ?? 20_000, relist)
  try {
    expose(await connection.listTools())
  } catch (error) {
    await connection.close()
    if (McpToolError.isInstance(error)) throw error
    throw new McpToolError(
      'mcp_protocol_error',
      `MCP server "${options.name}" could not list its tools: ${connection.scrubber.text((error as Error)?.message ?? String(error))}`,
      {
        cause: connection.scrubber.error(error),
      },
    )
  }

  return {
    name: options.name,
    tools,
    serverToolNames,
    get serverInfo() {
      return connection.serverVersion
    },
    get connections() {
      return connection.generation
    },
    setup(extensions: Extensions) {
      registries.add(extensions.tools, tools)
    },
    dispose: () => connection.close(),
    close: () => connection.close(),
  }
}

function wrapTool(info: McpToolInfo, modelName: string, connection: McpConnection, options: McpToolsOptions): McpTool {
  const timeoutMs = options.timeoutMs ?? 60_000
  const maxTotalTimeoutMs = Math.max(options.maxTotalTimeoutMs ?? 600_000, timeoutMs)
  const effect = decide(options.effect, info, 'external')
  const label = `the tool "${info.name}" on MCP server "${options.name}"`
  return defineTool<Record<string, unknown>, McpCallResult>({
    name: modelName,
    id: `mcp.${options.name}.${info.name}`,
    description: describe(info, options.maxDescriptionChars ?? 2000),
    inputSchema: jsonSchema<Record<string, unknown>>(info.inputSchema, (value) => {
      const problems = checkJsonSchema(info.inputSchema, value)
      // The kernel names the tool ("Invalid arguments for …"): only the problems here.
      if (problems.length > 0) return { success: false, error: problems.join('; ') }
      return { success: true, value: value as Record<string, unknown> }
    }),
    effect,
    idempotent: decide(options.idempotent, info, false),
    needsApproval: decide(options.needsApproval, info, effect !== 'read'),
    // The kernel's limit stays above the MCP one, which progress extends up to maxTotalTimeoutMs.
    timeoutMs: maxTotalTimeoutMs + 1000,
    async execute(input, context) {
      const { onProgress } = options
      const raw = await connection.callTool(info.name, input ?? {}, {
        signal: context?.signal,
        timeoutMs,
        maxTotalTimeoutMs,
        task: info.taskSupport === 'required',
        onProgress:
          onProgress &&
          ((update) =>
            onProgress({ ...update, server: options.name, tool: info.name, toolName: modelName, runId: context?.runId ?? '', callId: context?.callId ?? '' })),
      })
      return toCallResult(raw, label)
    },
  })
}

function taskSupportOf(tool: McpServerTool): McpToolInfo['taskSupport'] {
  const support = tool.execution?.taskSupport
  return support === 'required' || support === 'optional' || support === 'forbidden' ? support : undefined
}

function replaceEntries<T>(target: Record<string, T>, next: Record<string, T>): void {
  for (const key of Object.keys(target)) if (!Object.hasOwn(next, key)) delete target[key]
  Object.assign(target, next)
}

/** `${server}_${tool}`, with every character outside `[a-zA-Z0-9_-]` replaced and cut to 64. */
export function prefixedToolName(server: string, tool: string): string {
  const cleaned = `${server}_${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64)
  return toolNamePattern.test(cleaned) ? cleaned : 'mcp_tool'
}

function uniqueName(base: string, taken: Record<string, unknown>): string {
  if (!Object.hasOwn(taken, base)) return base
  for (let index = 2; ; index++) {
    const suffix = `_${index}`
    const candidate = `${base.slice(0, 64 - suffix.length)}${suffix}`
    if (!Object.hasOwn(taken, candidate)) return candidate
  }
}

function normalizeInputSchema(schema: unknown): JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { type: 'object', properties: {} }
  const copy = JSON.parse(JSON.stringify(schema)) as JsonSchema
  if (copy.type === undefined) copy.type = 'object'
  return copy
}

function describe(info: McpToolInfo, maxChars: number): string {
  const text = info.description.trim() || `Tool "${info.name}" of the MCP server "${info.server}".`
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text
}

function passesFilter(filter: McpToolsOptions['toolFilter'], info: McpToolInfo): boolean {
  if (!filter) return true
  if (typeof filter === 'function') return filter(info)
  return filter.includes(info.name)
}

function decide<T>(option: PerTool<T> | undefined, info: McpToolInfo, fallback: T): T {
  if (option === undefined) return fallback
  return typeof option === 'function' ? (option as (tool: McpToolInfo) => T)(info) : option
}
