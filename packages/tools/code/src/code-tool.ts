// codeTool(): the model-facing `run_code` tool: JavaScript in a QuickJS sandbox with no host access.
import { ConfigurationError, defineTool, type JsonValue, type Tool } from '@spindle/core'
import { z } from 'zod'
import { runSandboxed, type GrantedFunction, type SandboxLimits } from './run-sandboxed.js'

/** Options of `codeTool()`: QuickJS memory, time and output limits, the host functions granted to the code (`globals`), and the tool's name. */
export interface CodeToolOptions {
  /** QuickJS heap limit (default 32 MiB). */
  memoryLimitBytes?: number
  /** Time limit for one run (default 5 s). */
  timeLimitMs?: number
  /** Cap on the result JSON and, separately, on the captured console output (default 64 KiB). */
  maxOutputBytes?: number
  /** QuickJS stack limit (default 256 KiB). */
  maxStackBytes?: number
  /** Most calls of the granted functions in one run (default 1,000): a runaway loop of effects stops there. */
  maxHostCalls?: number
  /**
   * Host functions the code may call, by global name. They are the ONLY host access: inside the sandbox
   * each is an async function taking and returning JSON (`const rows = await lookup('id-1')`).
   */
  globals?: Record<string, GrantedFunction>
  /** The name the model sees (default `run_code`). */
  name?: string
  /** Ask a human before each run (default false; consider true when `globals` have effects). */
  needsApproval?: boolean
}

/** What `run_code` returns: the value of the last expression (or of a top-level `return`) as JSON, and the console lines. */
export interface CodeToolResult {
  /** The value of the last expression (awaited when a promise), as JSON; null for undefined. */
  result: JsonValue
  /** console.log / info / warn / error / debug lines, capped at maxOutputBytes. */
  logs: string[]
}

const reservedNames = new Set(['console', 'globalThis', 'JSON', 'Object', 'Function', 'Promise', 'eval', 'undefined', 'NaN', 'Infinity'])

/**
 * A `run_code` tool that evaluates JavaScript in a fresh QuickJS context per call (in its own worker
 * thread) with memory, time and output limits. No require, process, fetch or file system: only the
 * functions granted through `globals`.
 *
 * @example
 * const code = codeTool({ timeLimitMs: 2000, globals: { getRate: async (currency) => rates[currency] } })
 */
export function codeTool(options: CodeToolOptions = {}): Tool<{ code: string }, CodeToolResult> {
  const limits: SandboxLimits = {
    memoryLimitBytes: positive('memoryLimitBytes', options.memoryLimitBytes, 32 * 1024 * 1024),
    timeLimitMs: positive('timeLimitMs', options.timeLimitMs, 5000),
    maxOutputBytes: positive('maxOutputBytes', options.maxOutputBytes, 64 * 1024),
    maxStackBytes: positive('maxStackBytes', options.maxStackBytes, 256 * 1024),
    hardKillGraceMs: 1500,
    startupTimeoutMs: 30_000,
    maxHostCalls: wholeCount('maxHostCalls', options.maxHostCalls, 1_000),
  }
  const globals = { ...options.globals }
  for (const [name, fn] of Object.entries(globals)) {
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) || reservedNames.has(name)) {
      throw new ConfigurationError(`[spindle/tools-code] "${name}" cannot be granted as a global; use a plain identifier that is not a built-in`)
    }
    if (typeof fn !== 'function') throw new ConfigurationError(`[spindle/tools-code] the granted global "${name}" must be a function`)
  }
  const granted = Object.keys(globals)
  return defineTool({
    name: options.name ?? 'run_code',
    description:
      'Run JavaScript in an isolated sandbox and return the value of its last expression (awaited if it is a promise; top-level await works) plus console output. ' +
      `No network, files, require or process. Limits: ${limits.timeLimitMs} ms, ${Math.round(limits.memoryLimitBytes / 1024 / 1024)} MiB.` +
      (granted.length ? ` Available async functions: ${granted.join(', ')}.` : ''),
    inputSchema: z.object({ code: z.string().min(1).max(200_000).describe('JavaScript source; the last expression is the result') }),
    idempotent: granted.length === 0,
    effect: granted.length === 0 ? 'read' : 'external',
    needsApproval: options.needsApproval ?? false,
    timeoutMs: limits.timeLimitMs + limits.hardKillGraceMs + limits.startupTimeoutMs,
    maxOutputBytes: limits.maxOutputBytes * 2,
    execute: ({ code }, context) => runSandboxed({ code, limits, globals, signal: context?.signal }),
  })
}

function wholeCount(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 0) throw new ConfigurationError(`[spindle/tools-code] ${name} must be a whole number of at least 0 (got ${value})`)
  return value
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0) throw new ConfigurationError(`[spindle/tools-code] ${name} must be a positive number (got ${value})`)
  return value
}

/**
 * The code tool as a `ToolSet` keyed by the name the model sees.
 *
 * @example
 * runtime.run({ input, agent: { model, tools: { ...codeToolSet(), ...fileToolSet({ root }) } } })
 */
export function codeToolSet(options: CodeToolOptions = {}): Record<string, Tool> {
  const tool = codeTool(options)
  return { [tool.name]: tool }
}
