// The per-step and per-call context a ToolRuntime gives the tools it runs: the step's abort as one promise, and a
// call's ToolExecutionContext (its AbortSignal created only when the tool reads it).
import type { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { ArtifactStore } from '../spec/artifact-store.js'
import { isAborted } from '../util/is-aborted.js'
import type { ToolExecutionContext } from './tool.js'
import type { ExecuteCallsInput } from './tool-step.js'

/**
 * The run's abort as one promise for the step: one listener on the run's signal per step (not per call) ends every
 * pending asynchronous call. Created on first use (a synchronous tool never waits on it). Built by `stepAbort()` as
 * one literal, its methods included: a class instance's hidden class dies at a full GC when no run is alive, and the
 * code compiled against it (see util/fast-path.ts).
 */
export class StepAbort {
  declare readonly signal: AbortSignal
  declare abortedPromise: Promise<never> | undefined
  declare onAbort: (() => void) | undefined

  /** Rejects with the run's abort reason. */
  aborted(): Promise<never> {
    if (this.abortedPromise) return this.abortedPromise
    const signal = this.signal
    this.abortedPromise = new Promise<never>((_, reject) => {
      this.onAbort = () => reject(signal.reason)
      if (signal.aborted) this.onAbort()
      else signal.addEventListener('abort', this.onAbort, { once: true })
    })
    this.abortedPromise.catch(() => {})
    return this.abortedPromise
  }

  /** Stops listening to the run's signal (the step is over). */
  release(): void {
    if (this.onAbort) this.signal.removeEventListener('abort', this.onAbort)
  }
}

/** The abort of one tool step of the run whose signal is `signal`. */
export function stepAbort(signal: AbortSignal): StepAbort {
  return { signal, abortedPromise: undefined, onAbort: undefined, aborted: StepAbort.prototype.aborted, release: StepAbort.prototype.release }
}

/**
 * A tool call's context. Its AbortSignal is created only if the tool reads `signal` (most tools never do, and an
 * AbortController with its listener is a measurable share of a step). `signal` is an own, enumerable getter, so
 * a spread of the context still carries it, and it is defined from one shared descriptor: an object literal with
 * a getter cost 650 bytes more per call (a new getter closure, and a new hidden class for each object).
 */
export class CallContext implements ToolExecutionContext {
  readonly runId: string
  readonly sessionId: string
  readonly step: number
  readonly callId: string
  readonly toolName: string
  readonly idempotencyKey: string
  declare readonly signal: AbortSignal
  readonly runtime: RuntimeStore | undefined
  readonly artifacts: ArtifactStore
  readonly nested: ToolExecutionContext['nested']
  readonly #runSignal: AbortSignal
  #controller: AbortController | undefined = undefined
  #detach: (() => void) | undefined = undefined

  static readonly #signalProperty: PropertyDescriptor = {
    get(this: CallContext) {
      return this.#callSignal()
    },
    // As an object literal's getter: enumerable (a spread copies it) and configurable.
    enumerable: true,
    configurable: true,
  }

  constructor(input: ExecuteCallsInput, callId: string, toolName: string, idempotencyKey: string) {
    this.runId = input.runId
    this.sessionId = input.sessionId
    this.step = input.step
    this.callId = callId
    this.toolName = toolName
    this.idempotencyKey = idempotencyKey
    this.runtime = input.runtime
    this.artifacts = input.artifacts
    this.nested = input.nested
    this.#runSignal = input.signal
    Object.defineProperty(this, 'signal', CallContext.#signalProperty)
  }

  #callSignal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController()
      const runSignal = this.#runSignal
      this.#controller = controller
      if (isAborted(runSignal)) controller.abort(runSignal.reason)
      else {
        const forward = () => controller.abort(runSignal.reason)
        runSignal.addEventListener('abort', forward, { once: true })
        this.#detach = () => runSignal.removeEventListener('abort', forward)
      }
    }
    return this.#controller.signal
  }

  /** Aborts the call's signal, if the tool asked for it (its own timeout). */
  abort(reason: unknown): void {
    this.#controller?.abort(reason)
  }

  /** Stops forwarding the run's abort to the call (the call has ended). */
  detach(): void {
    this.#detach?.()
  }
}
