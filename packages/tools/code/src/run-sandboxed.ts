// Runs untrusted JavaScript in QuickJS inside a fresh worker thread; the host only exchanges JSON
// with it, answers calls to explicitly granted functions, and kills it on a hard deadline.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { JsonValue } from '@spindle/core'
import { CodeToolError } from './code-tool-error.js'

/** A host function the guest may call; inside the sandbox it is async and exchanges JSON only. */
export type GrantedFunction = (...args: any[]) => unknown

/** The memory, time and output limits of one sandboxed run. */
export interface SandboxLimits {
  memoryLimitBytes: number
  timeLimitMs: number
  maxOutputBytes: number
  maxStackBytes: number
  /** Extra time past timeLimitMs (a native call that ignores interrupts) before the thread is killed. */
  hardKillGraceMs: number
  /** Time allowed for the worker and QuickJS to start before the guest code runs. */
  startupTimeoutMs: number
  /** Most calls of granted functions one run may make; the next one stops the run instead of running. */
  maxHostCalls: number
}

/** One sandboxed run: the code, its limits, the host functions it may call and an abort signal. */
export interface SandboxRun {
  code: string
  limits: SandboxLimits
  globals: Record<string, GrantedFunction>
  signal?: AbortSignal
}

/** What a sandboxed run produced: its result as JSON and its console lines. */
export interface SandboxResult {
  result: JsonValue
  logs: string[]
}

type WorkerReport =
  | { type: 'started' }
  | { type: 'host-call'; id: number; name: string; argsJson: string }
  | { type: 'done'; ok: true; json: string | undefined; logs: string[]; logsTruncated: boolean }
  | { type: 'done'; ok: false; kind: string; detail?: string; logs: string[]; logsTruncated: boolean }

const workerUrl = new URL('../worker/sandbox-worker.cjs', import.meta.url)

/** A `WebAssembly.Module` (typed loosely: the Node 20 lib used here has no WebAssembly types). */
type CompiledWasm = object

let compiledWasm: Promise<CompiledWasm | undefined> | undefined
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledWasm> } }).WebAssembly

/** QuickJS's wasm, compiled once per process and handed to every worker (saves a compile per call). */
function quickjsWasm(): Promise<CompiledWasm | undefined> {
  compiledWasm ??= (async () => {
    try {
      const fromPackage = createRequire(createRequire(import.meta.url).resolve('quickjs-emscripten'))
      return await wasm.compile(await readFile(fromPackage.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')))
    } catch {
      return undefined // the worker then loads it itself
    }
  })()
  return compiledWasm
}

/**
 * Runs untrusted JavaScript in QuickJS inside a fresh worker thread, within the run's memory, time, stack, output and
 * host-call limits, and resolves with its result and console output. The worker is killed on the deadline. Rejects
 * with a `CodeToolError` whose code says why: `code_error` (the code threw), `code_timeout`, `code_memory_limit`,
 * `code_stack_overflow`, `code_output_limit`, `code_host_call_limit`, `code_not_serializable`, `code_aborted`, or
 * `code_sandbox_failed` (the sandbox itself could not start).
 */
export async function runSandboxed(run: SandboxRun): Promise<SandboxResult> {
  const { limits } = run
  const wasmModule = await quickjsWasm()
  if (run.signal?.aborted) throw new CodeToolError('code_aborted', 'the run was cancelled before the code started')
  return new Promise<SandboxResult>((resolve, reject) => {
    const worker = new Worker(workerUrl, {
      workerData: {
        code: run.code,
        memoryLimitBytes: limits.memoryLimitBytes,
        maxStackBytes: limits.maxStackBytes,
        timeLimitMs: limits.timeLimitMs,
        maxOutputBytes: limits.maxOutputBytes,
        globalNames: Object.keys(run.globals),
        wasmModule,
      },
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    })
    let settled = false
    let hostCalls = 0
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(hardKill)
      run.signal?.removeEventListener('abort', onAbort)
      void worker.terminate()
      try {
        outcome()
      } catch (error) {
        reject(new CodeToolError('code_sandbox_failed', `the sandbox returned an unreadable report: ${(error as Error).message}`, { cause: error }))
      }
    }
    // Until the guest starts, only a generous start-up limit applies (a loaded machine starts workers slowly);
    // from then on, the time limit plus a grace for native calls that never check for interrupts.
    let hardKill = setTimeout(() => {
      settle(() =>
        reject(new CodeToolError('code_sandbox_failed', `the sandbox did not start within ${limits.startupTimeoutMs} ms; try again`, { isRetryable: true })),
      )
    }, limits.startupTimeoutMs)
    const onAbort = () => settle(() => reject(new CodeToolError('code_aborted', 'the code was stopped because the run was cancelled')))
    run.signal?.addEventListener('abort', onAbort, { once: true })
    worker.on('message', (report: WorkerReport) => {
      if (report.type === 'started') {
        clearTimeout(hardKill)
        hardKill = setTimeout(() => settle(() => reject(timeoutError(limits.timeLimitMs))), limits.timeLimitMs + limits.hardKillGraceMs)
        return
      }
      if (report.type === 'host-call') {
        // Once stopped (cancelled, timed out, done), calls the dying worker still sends are dropped: a granted
        // function with effects (an email, a payment) must not run for code that was already stopped.
        if (settled || run.signal?.aborted) return
        // A loop of calls (awaited or not) is cut at the limit: the call over it is not made, and the run stops.
        if (++hostCalls > limits.maxHostCalls) {
          settle(() =>
            reject(
              new CodeToolError(
                'code_host_call_limit',
                `the code called granted functions more than ${limits.maxHostCalls} times and was stopped (the call over the limit was not made); make fewer calls, e.g. one call for a batch`,
              ),
            ),
          )
          return
        }
        void answerHostCall(worker, run.globals, report)
        return
      }
      settle(() => (report.ok ? resolve(toResult(report.json, report.logs, limits)) : reject(toError(report, limits))))
    })
    worker.on('error', (error) => {
      settle(() => reject(new CodeToolError('code_sandbox_failed', `the sandbox failed: ${error.message}`, { cause: error })))
    })
    worker.on('exit', (exitCode) => {
      settle(() => reject(new CodeToolError('code_sandbox_failed', `the sandbox stopped unexpectedly (exit code ${exitCode}); try simpler code`)))
    })
  })
}

async function answerHostCall(worker: Worker, globals: Record<string, GrantedFunction>, call: { id: number; name: string; argsJson: string }): Promise<void> {
  let reply: { type: 'host-result'; id: number; ok: boolean; json?: string; message?: string }
  try {
    const fn = Object.hasOwn(globals, call.name) ? globals[call.name] : undefined
    if (!fn) throw new Error(`${call.name} is not a granted function`)
    // JSON.parse never touches prototypes: a guest "__proto__" key stays a plain own property.
    const args = JSON.parse(call.argsJson) as unknown[]
    const value = await fn(...(Array.isArray(args) ? args : []))
    reply = { type: 'host-result', id: call.id, ok: true, json: value === undefined ? undefined : JSON.stringify(value) }
  } catch (error) {
    reply = { type: 'host-result', id: call.id, ok: false, message: error instanceof Error ? error.message : String(error) }
  }
  try {
    worker.postMessage(reply)
  } catch {
    // The worker is gone (finished or killed): nothing to answer.
  }
}

function toResult(json: string | undefined, logs: string[], limits: SandboxLimits): SandboxResult {
  if (json !== undefined && Buffer.byteLength(json) > limits.maxOutputBytes) throw outputError(`${Buffer.byteLength(json)} bytes`, limits)
  return { result: json === undefined ? null : (JSON.parse(json) as JsonValue), logs }
}

function toError(report: Extract<WorkerReport, { ok: false }>, limits: SandboxLimits): CodeToolError {
  const tail = logTail(report.logs)
  const details = { logs: report.logs }
  switch (report.kind) {
    case 'timeout':
      return timeoutError(limits.timeLimitMs, tail)
    case 'memory':
      return new CodeToolError(
        'code_memory_limit',
        `the code ran out of memory (limit ${limits.memoryLimitBytes} bytes${report.detail === 'string too long' ? ', string too long' : ''}) and was stopped; use less memory${tail}`,
        { details },
      )
    case 'stack':
      return new CodeToolError('code_stack_overflow', `the code overflowed the call stack (too deep recursion) and was stopped${tail}`, { details })
    case 'output':
      return outputError(report.detail ?? 'too large', limits)
    case 'not-serializable':
      return new CodeToolError('code_not_serializable', `the result could not be turned into JSON (${report.detail}); return plain data${tail}`, { details })
    case 'crash':
      return new CodeToolError('code_sandbox_failed', `the sandbox failed: ${report.detail}`, { details })
    default:
      return new CodeToolError('code_error', `the code threw ${report.detail ?? 'an error'}${tail}`, { details })
  }
}

function timeoutError(timeLimitMs: number, tail = ''): CodeToolError {
  return new CodeToolError(
    'code_timeout',
    `the code ran longer than the ${timeLimitMs} ms time limit and was stopped (an infinite loop?); make it finish sooner${tail}`,
    { isRetryable: false },
  )
}

function outputError(size: string, limits: SandboxLimits): CodeToolError {
  return new CodeToolError('code_output_limit', `the result (${size}) exceeds the ${limits.maxOutputBytes}-byte output limit; return a smaller value`)
}

function logTail(logs: string[] | undefined): string {
  if (!logs || logs.length === 0) return ''
  const text = logs.slice(-20).join('\n')
  return `\nConsole output before it stopped:\n${text.length > 2000 ? `…${text.slice(-2000)}` : text}`
}
