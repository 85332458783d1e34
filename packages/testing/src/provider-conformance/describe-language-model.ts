// The provider conformance suite: one `describeLanguageModel(...)` call runs every wire scenario
// (text, tools, usage, finish reasons, retries, errors, truncation, abort, timeouts) against a real
// provider over real HTTP on 127.0.0.1, rendered by the protocol's WireAdapter.
import type { LanguageModel } from '@spindle/core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startScriptedServer, type ScriptedServer } from '../wire/sse-server.js'
import { rule, withSkipKey } from '../conformance/rule.js'
import { collectStream } from './collect-stream.js'
import { providerCaseFixes } from './provider-case-fixes.js'
import { conformanceApiKey, languageModelCases, type CaseContext, type CaseDefinition } from './language-model-cases.js'
import { describeError, expectCode } from './case-assertions.js'
import { userRequest } from './case-requests.js'
import { assertStreamRules } from './stream-rules.js'
import type { WireAdapter } from './wire-adapter.js'

/** What `createModel` receives: where the server is and how the model must be configured. */
export interface LanguageModelConformanceContext {
  server: ScriptedServer
  /** `http://127.0.0.1:<port>`; append the protocol's prefix (e.g. `/v1`) if the SDK expects one. */
  baseURL: string
  /** A fake key. The suite checks that it is sent, and that no error message echoes it. */
  apiKey: string
  modelId: string
  /** Retries the model may make before any part was yielded (the suite sets 0 or 2). */
  maxRetries: number
  /** First backoff delay; the suite keeps it small so tests stay fast. */
  retryInitialDelayMs: number
  /** Time allowed from the request to the first stream event. */
  firstChunkTimeoutMs: number
  /** Time allowed between two stream events. */
  idleTimeoutMs: number
}

/** The names of the suite's cases, for `skip`. */
export type LanguageModelConformanceCase =
  | 'text'
  | 'response-metadata'
  | 'reasoning'
  | 'request-mapping'
  | 'structured-output'
  | 'one-tool-call'
  | 'parallel-tool-calls'
  | 'interleaved-tool-calls'
  | 'argument-deltas'
  | 'usage'
  | 'finish-reasons'
  | 'rate-limit-retry-after'
  | 'rate-limit-no-retries'
  | 'server-error-then-success'
  | 'retries-are-bounded'
  | 'authentication-error'
  | 'context-overflow'
  | 'in-band-error'
  | 'truncated-before-finish'
  | 'truncated-mid-tool-arguments'
  | 'connection-reset'
  | 'abort-mid-stream'
  | 'abort-before-start'
  | 'abort-during-backoff'
  | 'slow-first-byte'
  | 'first-chunk-timeout'
  | 'idle-timeout'

/**
 * Options of `describeLanguageModel(name, options)`: the provider's wire protocol, how to build the model
 * under test against the loopback server, and the cases to skip (each with its reason).
 */
export interface LanguageModelConformanceOptions {
  /** Renders the scenarios into the provider's wire protocol. */
  wire: WireAdapter
  /** Builds the model under test, configured from the context (base URL, key, retries, timeouts). */
  createModel(context: LanguageModelConformanceContext): LanguageModel
  /** Starts the loopback server (default: `startScriptedServer()`). */
  startServer?: () => Promise<ScriptedServer>
  /** Model id passed in the context (default `conformance-model`). */
  modelId?: string
  /**
   * Cases to skip, each with the reason shown in the test title. Keys are case names (`one-tool-call`), not rule
   * ids: a failure of rule `provider.stream.tool-call-order` says which case to skip (`… (case one-tool-call — …)`).
   */
  skip?: Partial<Record<LanguageModelConformanceCase, string>>
}

const apiKey = conformanceApiKey

/**
 * Declares the provider conformance suite (vitest `describe`/`it`). Every case runs the real
 * provider (and its real SDK client) against a scripted loopback server speaking the wire protocol.
 *
 * Errors may be thrown or yielded as an `error` part; either way a failed stream never yields
 * `finish`, and a tool call whose arguments were cut off never yields `tool-call-end`.
 * Error expectations use core's stable codes: `provider`, `context_overflow`, `stream_interrupted`,
 * `aborted` (and `timeout` is accepted for timeouts).
 *
 * @example
 * describeLanguageModel('openai responses', {
 *   wire: openaiResponsesWire,
 *   createModel: (context) => createOpenAI({ apiKey: context.apiKey, baseURL: `${context.baseURL}/v1`,
 *     maxRetries: context.maxRetries, retry: { initialDelayMs: context.retryInitialDelayMs },
 *     timeouts: { firstChunkMs: context.firstChunkTimeoutMs, idleMs: context.idleTimeoutMs } }).responses(context.modelId),
 * })
 */
export function describeLanguageModel(name: string, options: LanguageModelConformanceOptions): void {
  const skip = options.skip ?? {}
  describe(`${name} — provider conformance (${options.wire.protocol})`, () => {
    let server: ScriptedServer | undefined
    beforeAll(async () => {
      server = await (options.startServer ?? startScriptedServer)()
    })
    afterAll(async () => {
      await server?.close()
    })
    beforeEach(() => {
      server?.reset()
    })
    const cases = languageModelCases(createCaseContext(options, () => server))
    for (const [caseName, definition] of cases) {
      const reason = skip[caseName]
      const title = `${caseName}: ${definition.title}`
      if (reason) it.skip(`${title} (skipped: ${reason})`, () => {})
      else it(title, () => runCase(caseName, definition), definition.timeoutMs)
    }
  })
}

/**
 * Runs one case of the suite outside `describe` (it starts and closes its own server). A failure is a
 * `ConformanceError` naming the broken rule (`provider.<case>` or a stream rule such as
 * `provider.stream.ends-with-finish`), how to fix it, and the case (the key `skip` takes).
 *
 * @example
 * await expect(runLanguageModelCase('text', { wire, createModel })).rejects.toThrow(/provider.stream.ends-with-finish/)
 */
export async function runLanguageModelCase(caseName: LanguageModelConformanceCase, options: LanguageModelConformanceOptions): Promise<void> {
  const server = await (options.startServer ?? startScriptedServer)()
  try {
    const definition = languageModelCases(createCaseContext(options, () => server)).get(caseName)
    if (definition === undefined) throw new Error(`[spindle/testing] case "${caseName}" does not apply to the ${options.wire.protocol} wire`)
    await runCase(caseName, definition)
  } finally {
    await server.close()
  }
}

/** The rule id of a case: `provider.<case>`. */
export function providerCaseRule(caseName: LanguageModelConformanceCase): string {
  return `provider.${caseName}`
}

/** Runs a case; a broken rule's message also names the case, the key `skip` takes. */
async function runCase(caseName: LanguageModelConformanceCase, definition: CaseDefinition): Promise<void> {
  try {
    await rule(providerCaseRule(caseName), providerCaseFixes[caseName], definition.body)
  } catch (error) {
    throw withSkipKey(error, 'case', caseName)
  }
}

function createCaseContext(options: LanguageModelConformanceOptions, currentServer: () => ScriptedServer | undefined): CaseContext {
  const server = (): ScriptedServer => {
    const current = currentServer()
    if (current === undefined) throw new Error('[spindle/testing] the conformance server is not started')
    return current
  }
  return {
    get server() {
      return server()
    },
    wire: options.wire,
    model: (overrides = {}) =>
      options.createModel({
        server: server(),
        baseURL: server().url,
        apiKey,
        modelId: options.modelId ?? 'conformance-model',
        maxRetries: 0,
        retryInitialDelayMs: 5,
        firstChunkTimeoutMs: 5_000,
        idleTimeoutMs: 5_000,
        ...overrides,
      }),
    async run(target, request = userRequest('Hello'), signal) {
      const collected = await collectStream(target.stream(request, signal ? { signal } : undefined))
      assertStreamRules(collected)
      return collected
    },
    expectSuccess(collected) {
      if (collected.error !== undefined) throw new Error(`expected success, got: ${describeError(collected.error)}`)
      expect(collected.finish).toBeDefined()
      expect(collected.parts.at(-1)?.type).toBe('finish')
    },
    expectFailure(collected, code) {
      expect(collected.error, 'the stream should fail').toBeDefined()
      expect(collected.finish, 'a failed stream never yields finish').toBeUndefined()
      const error = collected.error as Record<string, any>
      if (code !== undefined) expectCode(error, code)
      expect(String(error?.message ?? ''), 'error messages never echo the API key').not.toContain(apiKey)
      return error
    },
  }
}
