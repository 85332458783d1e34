// ToolRuntime: executes a step's tool calls — validation, policy, the execution journal, timeouts,
// abort, bounded parallelism, results in call order, oversized output kept as an artifact.
import { SpindleError } from '../errors/spindle-error.js'
import { ToolArgumentsError, ToolTimeoutError } from '../errors/errors.js'
import type { PendingCall } from '../spec/run-state.js'
import type { ExecutionRecord } from '../spec/execution-store.js'
import type { JsonValue } from '../spec/json.js'
import { parseToolInput } from './define-tool.js'
import type { Tool } from './tool.js'
import type { ToolRegistry } from './tool-registry.js'
import { isToolAllowed, toolScope, type ToolScope } from './tool-scope.js'
import { toJsonValue } from './to-json-value.js'
import { shapeToolResult } from './shape-tool-result.js'
import { truncateOutput } from './truncate-output.js'
import { isAborted } from '../util/is-aborted.js'
import { asPromise } from '../util/as-promise.js'
import { isPromiseLike } from '../util/is-promise-like.js'
import { isPending } from '../util/fast-path.js'
import { CallContext, stepAbort, type StepAbort } from './tool-call-context.js'
import { failed, violationOf } from './tool-call-outcome.js'
import type { ExecuteCallsInput, ExecuteCallsResult, ToolCallOutcome } from './tool-step.js'

export type { ExecuteCallsInput, ExecuteCallsResult, ToolCallOutcome, ToolCallPolicy, ToolJournal } from './tool-step.js'

/** A call between its checks and its outcome: what each stage of its execution needs. */
interface PreparedCall {
  call: PendingCall
  tool: Tool
  /** The validated arguments the tool gets. */
  args: unknown
  input: ExecuteCallsInput
  abort: StepAbort
  started: number
  idempotencyKey: string
}

/** Executes a step's tool calls: validates arguments, applies the policy, journals each call before and after, runs them in parallel up to the limit, and shapes their results for the context. */
export class ToolRuntime {
  constructor(readonly registry: ToolRegistry) {}

  /** A scope for one run: the run's own tools on top of the registry. */
  scope(runTools: Array<[string, Tool]>, registryNames?: readonly string[]): ToolScope {
    return toolScope(this.registry, runTools, registryNames)
  }

  executeCalls(callsInput: ExecuteCallsInput): Promise<ExecuteCallsResult> {
    return asPromise(() => this.executeCallsNow(callsInput))
  }

  /**
   * `executeCalls()`, with the result returned as it is when the step completed synchronously: one call to a
   * synchronous tool, its journal written synchronously (the memory stores), its result small enough to stay in
   * the context. Anything asynchronous on the way (the tool, the journal, an artifact) makes it a promise from
   * there on. A run's tool step then needs no async round.
   */
  executeCallsNow(callsInput: ExecuteCallsInput): ExecuteCallsResult | Promise<ExecuteCallsResult> {
    const abort = stepAbort(callsInput.signal)
    let executing: ToolCallOutcome | Promise<ToolCallOutcome> | undefined
    try {
      // One call (most steps): executed here, without the parallel pool's extra async layer.
      executing = callsInput.calls.length === 1 ? this.#executeOne(callsInput.calls[0]!, callsInput, abort) : undefined
    } catch (error) {
      abort.release()
      throw error
    }
    if (executing === undefined || isPromiseLike(executing)) return this.#executeLater(executing, callsInput, abort)
    abort.release()
    return { outcomes: [executing], violation: violationOf(executing, callsInput.policy) }
  }

  /** The step's calls once asynchronous: the single call's pending outcome, or the whole pool. */
  async #executeLater(single: Promise<ToolCallOutcome> | undefined, callsInput: ExecuteCallsInput, abort: StepAbort): Promise<ExecuteCallsResult> {
    try {
      if (single === undefined) return await this.#executeAll(callsInput, abort)
      const outcome = await single
      return { outcomes: [outcome], violation: violationOf(outcome, callsInput.policy) }
    } finally {
      abort.release()
    }
  }

  async #executeAll(input: ExecuteCallsInput, abort: StepAbort): Promise<ExecuteCallsResult> {
    const { calls } = input
    const outcomes: ToolCallOutcome[] = Array.from({ length: calls.length })
    let violation: string | undefined
    let next = 0
    const worker = async () => {
      while (next < calls.length) {
        const index = next++
        const outcome = await this.#executeOne(calls[index]!, input, abort)
        violation ??= violationOf(outcome, input.policy)
        outcomes[index] = outcome
      }
    }
    const workers = Math.min(input.policy.maxParallelTools, calls.length)
    await Promise.all(Array.from({ length: workers }, worker))
    return { outcomes, violation }
  }

  /** One call: its outcome, synchronously while everything on its way is synchronous, else a promise of it. */
  #executeOne(call: PendingCall, input: ExecuteCallsInput, abort: StepAbort): ToolCallOutcome | Promise<ToolCallOutcome> {
    const started = performance.now()
    const tool = input.scope.get(call.toolName)
    if (!tool)
      return failed(input, call, started, 'tool_not_found', `Unknown tool "${call.toolName}". Available tools: ${input.scope.names().join(', ') || '(none)'}.`)
    if (!isToolAllowed(input.policy.tools, call.toolName, tool.id)) {
      return failed(input, call, started, 'policy_violation', `Tool "${call.toolName}" is not allowed by the runtime policy.`, false, tool.id)
    }
    if (call.approval === 'denied')
      return failed(
        input,
        call,
        started,
        'approval_denied',
        `The user denied this call${call.reason ? `: ${call.reason}` : ''}. Do not retry it unchanged.`,
        false,
        tool.id,
      )
    if (call.argsError)
      return failed(
        input,
        call,
        started,
        'tool_arguments',
        `Invalid JSON arguments for "${call.toolName}": ${call.argsError}. Send a valid JSON object.`,
        false,
        tool.id,
      )
    const parsed = parseToolInput(tool, call.args)
    if (!parsed.success) {
      const error = new ToolArgumentsError(`Invalid arguments for "${call.toolName}":\n${parsed.error}`)
      return failed(input, call, started, error.code, error.message, false, tool.id)
    }
    const run: PreparedCall = { call, tool, args: parsed.value, input, abort, started, idempotencyKey: `${input.runId}:${input.step}:${call.callId}` }
    const starting = input.executions.start({
      key: run.idempotencyKey,
      runId: input.runId,
      step: input.step,
      callId: call.callId,
      toolName: tool.id,
      args: call.args,
    })
    if (isPromiseLike(starting)) return this.#startedLater(starting, run)
    return starting.created ? this.#invoke(run) : this.#fromJournalOrRun(starting.record, run)
  }

  async #startedLater(starting: Promise<{ record: ExecutionRecord; created: boolean }>, run: PreparedCall): Promise<ToolCallOutcome> {
    const { record, created } = await starting
    return created ? this.#invoke(run) : this.#fromJournalOrRun(record, run)
  }

  /** A call the journal knew already: its recorded outcome reused, or the tool run after all. */
  async #fromJournalOrRun(record: ExecutionRecord, run: PreparedCall): Promise<ToolCallOutcome> {
    const { call, tool, input } = run
    const prior = await this.#fromJournal(record, tool, call, run.args, run.idempotencyKey)
    if (!prior) return this.#invoke(run)
    if (record.status === 'started') {
      // Decided without running the tool (reconciled, or its outcome unknown): the journal records that decision,
      // so the call is not left `started` for ever and a later resume reads the same outcome.
      await input.executions.finish(
        run.idempotencyKey,
        prior.isError ? { status: 'failed', error: prior.error! } : { status: 'succeeded', result: prior.result },
      )
    }
    if (prior.isError) {
      input.emit({ type: 'tool.error', step: input.step, callId: call.callId, toolName: call.toolName, toolId: tool.id, error: prior.error!, durationMs: 0 })
      return {
        callId: call.callId,
        toolName: call.toolName,
        result: { error: prior.error!.message },
        isError: true,
        error: prior.error,
        durationMs: 0,
        reused: true,
        executed: false,
      }
    }
    const shaped = await shapeToolResult(prior.result, tool, call, input)
    input.emit({
      type: 'tool.result',
      step: input.step,
      callId: call.callId,
      toolName: call.toolName,
      toolId: tool.id,
      result: shaped,
      durationMs: 0,
      reused: true,
    })
    return { callId: call.callId, toolName: call.toolName, result: shaped, isError: false, durationMs: 0, reused: true, executed: false }
  }

  /** Runs the tool. A synchronous tool's outcome is completed here; an asynchronous one races its deadline and the run's abort. */
  #invoke(run: PreparedCall): ToolCallOutcome | Promise<ToolCallOutcome> {
    const { call, input } = run
    // The run may have been cancelled while the journal start was written (a durable store's round trip): a tool
    // never starts after its run was cancelled (its journal record is closed as cancelled).
    if (isAborted(input.signal)) return this.#failure(input.signal.reason, run)
    input.emit({
      type: 'tool.started',
      step: input.step,
      callId: call.callId,
      toolName: call.toolName,
      toolId: run.tool.id,
      runId: '',
      sessionId: '',
      seq: 0,
      timestamp: 0,
    })
    const context = new CallContext(input, call.callId, call.toolName, run.idempotencyKey)
    let outcome: ToolCallOutcome | Promise<ToolCallOutcome>
    try {
      const value: unknown = run.tool.execute(run.args, context)
      if (isPromiseLike(value)) return this.#awaitTool(value, run, context)
      outcome = this.#complete(value, run)
    } catch (error) {
      return this.#settled(this.#failure(error, run), undefined, context)
    }
    if (isPromiseLike(outcome)) return this.#settled(outcome, run, context)
    context.detach()
    return outcome
  }

  /** An asynchronous tool: its value, or its deadline, or the run's abort, whichever comes first. */
  async #awaitTool(pending: PromiseLike<unknown>, run: PreparedCall, context: CallContext): Promise<ToolCallOutcome> {
    const { call } = run
    const timeoutMs = run.tool.timeoutMs ?? run.input.policy.toolTimeoutMs
    let timer: NodeJS.Timeout | undefined
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new ToolTimeoutError(`Tool "${call.toolName}" timed out after ${timeoutMs} ms.`)
          // Rejected before the abort: a tool that settles on abort must not win the race with a late value.
          reject(error)
          context.abort(error)
        }, timeoutMs)
      })
      deadline.catch(() => {})
      const value = await Promise.race([pending, deadline, run.abort.aborted()])
      return await this.#complete(value, run)
    } catch (error) {
      return await this.#failure(error, run)
    } finally {
      if (timer) clearTimeout(timer)
      context.detach()
    }
  }

  /**
   * An outcome completing asynchronously (the journal's finish, an artifact), the call's context detached once it
   * has. With `run`, a failure on the way is handled like the tool's own; without, the outcome is a failure's already.
   */
  async #settled(outcome: PromiseLike<ToolCallOutcome>, run: PreparedCall | undefined, context: CallContext): Promise<ToolCallOutcome> {
    try {
      return await outcome
    } catch (error) {
      if (!run) throw error
      return await this.#failure(error, run)
    } finally {
      context.detach()
    }
  }

  /** The tool's value: checked, recorded in the journal, shaped for the context, announced. */
  #complete(value: unknown, run: PreparedCall): ToolCallOutcome | Promise<ToolCallOutcome> {
    const { tool, input, idempotencyKey } = run
    if (tool.outputSchema) value = tool.outputSchema.parse(value)
    const result = toJsonValue(value)
    if (isAborted(input.signal)) throw input.signal.reason
    const finished = input.executions.finish(idempotencyKey, { status: 'succeeded', result })
    if (finished) return Promise.resolve(finished).then(() => this.#shaped(result, run))
    return this.#shaped(result, run)
  }

  #shaped(result: JsonValue, run: PreparedCall): ToolCallOutcome | Promise<ToolCallOutcome> {
    const shaped = shapeToolResult(result, run.tool, run.call, run.input)
    return isPending(shaped) ? shaped.then((value) => this.#succeeded(value, run)) : this.#succeeded(shaped, run)
  }

  #succeeded(shaped: JsonValue, run: PreparedCall): ToolCallOutcome {
    const { call, input, started } = run
    input.emit({
      type: 'tool.result',
      step: input.step,
      callId: call.callId,
      toolName: call.toolName,
      toolId: run.tool.id,
      result: shaped,
      durationMs: performance.now() - started,
      runId: '',
      sessionId: '',
      seq: 0,
      timestamp: 0,
    })
    return {
      callId: call.callId,
      toolName: call.toolName,
      result: shaped,
      isError: false,
      durationMs: performance.now() - started,
      reused: false,
      executed: true,
    }
  }

  /** A call that threw or timed out: recorded as failed (the model gets the error), or as cancelled when the run was aborted (rethrown). */
  async #failure(error: unknown, run: PreparedCall): Promise<ToolCallOutcome> {
    const { call, input, started, idempotencyKey } = run
    if (isAborted(input.signal)) {
      // The run was cancelled: record it, and never write a late result.
      await Promise.resolve(input.executions.finish(idempotencyKey, { status: 'cancelled', error: { code: 'aborted', message: 'the run was aborted' } })).catch(
        () => {},
      )
      throw input.signal.reason ?? error
    }
    const code = SpindleError.isInstance(error) ? error.code : 'tool'
    const message = error instanceof Error ? error.message : String(error)
    await input.executions.finish(idempotencyKey, { status: 'failed', error: { code, message } })
    // An error message is output too: capped like a result before it enters the context (the journal keeps it whole).
    const allowed = run.tool.maxOutputBytes ?? input.policy.maxToolOutputBytes
    const cap = input.contextMaxOutputBytes !== undefined && input.contextMaxOutputBytes < allowed ? input.contextMaxOutputBytes : allowed
    const shown = truncateOutput(message, cap).value as string
    return failed(input, call, started, code, `Tool "${call.toolName}" failed: ${shown}`, true, run.tool.id)
  }

  /** A call found in the journal: reuse its result, or decide what to do with a call that never finished. */
  async #fromJournal(
    record: ExecutionRecord,
    tool: Tool,
    call: PendingCall,
    args: unknown,
    idempotencyKey: string,
  ): Promise<{ isError: boolean; result: JsonValue; error?: { code: string; message: string } } | undefined> {
    if (record.status === 'succeeded') return { isError: false, result: record.result ?? null }
    if (record.status === 'failed') return { isError: true, result: null, error: record.error ?? { code: 'tool', message: 'failed' } }
    // `started` (a crash mid-execution) or `cancelled`: the side effect may or may not have happened.
    if (tool.idempotent) return undefined
    if (tool.reconcile) {
      const decision = await tool.reconcile({ args, record, idempotencyKey })
      if (decision.action === 'rerun') return undefined
      if (decision.action === 'result') return { isError: false, result: decision.result }
      if (decision.action === 'error') return { isError: true, result: null, error: { code: 'tool', message: decision.message } }
    }
    return {
      isError: true,
      result: null,
      error: {
        code: 'outcome_unknown',
        message: `The outcome of "${call.toolName}" (call ${call.callId}) is unknown: the process stopped while it ran, and it is not safe to run it again. Check its effect before retrying.`,
      },
    }
  }
}
