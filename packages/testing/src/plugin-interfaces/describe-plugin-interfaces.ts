// Conformance checks for the plugin interfaces beside stores and models: a context adapter, a compaction strategy and
// a runtime observer declare `specificationVersion: 'v1'` and keep their interface's rules on a sample session.
import {
  AgentRuntime,
  countMessagesTokens,
  Extensions,
  memoryStores,
  mockModel,
  RuntimeStore,
  type AgentEvent,
  type CompactionStrategy,
  type ContextAdapter,
  type ContextDraft,
  type ModelMessage,
  type RuntimeObserver,
  type SessionEntry,
} from '@spindle/core'
import { safeCutPoints } from '@spindle/core/plugin-kit'
import { describe, it } from 'vitest'
import { rule } from '../conformance/rule.js'

type Make<T> = () => T | Promise<T>

/** A session window of two turns, the first with a tool call and its result (seq 2 and 3: no safe cut at 2). */
export function sampleSessionWindow(sessionId = 'conformance-session'): SessionEntry[] {
  const messages: ModelMessage[] = [
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', args: { city: 'Paris' } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'weather', result: { sky: 'clear', celsius: 21 } }] },
    { role: 'assistant', content: [{ type: 'text', text: 'It is clear and 21 °C in Paris.' }] },
    { role: 'user', content: 'And tomorrow?' },
    { role: 'assistant', content: [{ type: 'text', text: 'Tomorrow looks clear too.' }] },
  ]
  return messages.map((message, index) => ({ kind: 'message', message, sessionId, seq: index + 1, createdAt: 1_700_000_000_000 + index }))
}

function versionProblems(plugin: { readonly specificationVersion?: unknown; readonly name?: unknown }, named: boolean): string[] {
  const problems: string[] = []
  if (plugin.specificationVersion !== 'v1')
    problems.push(`specificationVersion is ${JSON.stringify(plugin.specificationVersion)}, expected "v1": declare the spec version it implements`)
  if (named && (typeof plugin.name !== 'string' || plugin.name.length === 0))
    problems.push(`name is ${JSON.stringify(plugin.name)}, expected a non-empty string`)
  return problems
}

/** What breaks the ContextAdapter spec: the version, the name, and `apply` on a sample session's draft. */
export async function contextAdapterProblems(adapter: ContextAdapter): Promise<string[]> {
  const problems = versionProblems(adapter, true)
  const window = sampleSessionWindow()
  const draft: ContextDraft = {
    system: ['You are a test agent.'],
    messages: window.flatMap((entry) => (entry.kind === 'message' ? [entry.message] : [])),
    tools: [],
  }
  try {
    await adapter.apply(draft, {
      runId: 'conformance-run',
      sessionId: 'conformance-session',
      step: 1,
      agentName: 'conformance-agent',
      instructions: 'You are a test agent.',
      model: mockModel([{ text: 'ok' }]),
      window,
      compaction: undefined,
      tools: [],
      stores: memoryStores(),
      runtime: new RuntimeStore(),
      signal: new AbortController().signal,
    })
    if (!draft.system.every((section) => typeof section === 'string')) problems.push('apply put a value that is not a string into draft.system')
    if (!draft.messages.every((message) => typeof message?.role === 'string')) problems.push('apply put a value without a role into draft.messages')
  } catch (error) {
    problems.push(`apply threw on an ordinary session: ${(error as Error)?.message ?? String(error)}`)
  }
  return problems
}

/** What breaks the CompactionStrategy spec: the version, the name, and a cut that is not safe on a sample session. */
export async function compactionStrategyProblems(strategy: CompactionStrategy): Promise<string[]> {
  const problems = versionProblems(strategy, true)
  const window = sampleSessionWindow()
  const safe = safeCutPoints(window)
  try {
    const record = await strategy.compact({
      sessionId: 'conformance-session',
      window,
      previous: undefined,
      targetTokens: 1,
      countTokens: (messages) => countMessagesTokens(messages),
      signal: new AbortController().signal,
    })
    if (record !== undefined && !safe.includes(record.throughSeq)) {
      problems.push(
        `throughSeq ${record.throughSeq} is not a safe cut (${safe.join(', ')}): end on a seq safeCutPoints(window) returns (@spindle/core/plugin-kit)`,
      )
    }
  } catch (error) {
    problems.push(`compact threw on an ordinary session: ${(error as Error)?.message ?? String(error)}`)
  }
  return problems
}

/** What breaks the RuntimeObserver spec: the version, and `onEvent` throwing on an event of a real mock-model run. */
export async function runtimeObserverProblems(observer: RuntimeObserver): Promise<string[]> {
  const problems = versionProblems(observer, false)
  const failures: Array<{ event: AgentEvent; error: unknown }> = []
  const extensions = new Extensions().setStores(memoryStores())
  extensions.addObserver({
    specificationVersion: 'v1',
    onEvent: (event) => {
      try {
        observer.onEvent(event)
      } catch (error) {
        failures.push({ event, error })
      }
    },
  })
  await new AgentRuntime(extensions).run({ agent: { name: 'conformance-agent', model: mockModel([{ text: 'Hello.' }]) }, input: 'Hi' })
  const first = failures[0]
  if (first)
    problems.push(
      `onEvent threw on ${first.event.type} (the runtime drops the error and the observer misses the rest): ${(first.error as Error)?.message ?? String(first.error)}`,
    )
  return problems
}

function describeInterface<T>(kind: string, fix: string, make: Make<T>, problemsOf: (plugin: T) => Promise<string[]>): void {
  describe(`${kind} conformance`, () => {
    it(`keeps the ${kind} spec v1 (version, name, behaviour on a sample session)`, async () => {
      const problems = await problemsOf(await make())
      await rule(`${kind}.spec-v1`, fix, () => {
        if (problems.length > 0) throw new Error(problems.join('; '))
      })
    })
  })
}

/**
 * Checks a context adapter: `specificationVersion: 'v1'`, a name, and an `apply` that adds to a sample session's
 * draft (strings to `system`, messages to `messages`) without throwing.
 *
 * @example
 * describeContextAdapter(() => workingMemory().adapter)
 */
export function describeContextAdapter(make: Make<ContextAdapter>): void {
  describeInterface(
    'context-adapter',
    "set specificationVersion: 'v1' and a unique name; apply only adds to the draft and does not throw",
    make,
    contextAdapterProblems,
  )
}

/**
 * Checks a compaction strategy: `specificationVersion: 'v1'`, a name, and a `compact` that returns `undefined` or a
 * compaction whose `throughSeq` is a safe cut (never between a tool call and its result, never the last entry).
 *
 * @example
 * describeCompactionStrategy(() => summarizeCompaction({ model: mockModel([{ text: summary }]) }))
 */
export function describeCompactionStrategy(make: Make<CompactionStrategy>): void {
  describeInterface(
    'compaction-strategy',
    "set specificationVersion: 'v1' and a name; cut only at a seq safeCutPoints(window) returns",
    make,
    compactionStrategyProblems,
  )
}

/**
 * Checks a runtime observer: `specificationVersion: 'v1'`, and an `onEvent` that takes every event of a real run
 * (a mock model answering once) without throwing.
 *
 * @example
 * describeRuntimeObserver(() => new OtelObserver({ tracer, meter, captureContent: false }))
 */
export function describeRuntimeObserver(make: Make<RuntimeObserver>): void {
  describeInterface('runtime-observer', "set specificationVersion: 'v1'; onEvent must be cheap and catch its own errors", make, runtimeObserverProblems)
}
