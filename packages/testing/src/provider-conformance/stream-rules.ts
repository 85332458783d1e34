// The rules every LanguageModel stream keeps, whatever its wire: each violation names its rule and the fix,
// so a failing provider learns what to change, not just which assertion broke.
import { ConformanceError, type Usage } from '@spindle/core'
import type { CollectedStream } from './collect-stream.js'

/** A broken stream rule: its id and what was seen. */
export interface StreamRuleViolation {
  rule: StreamRuleId
  message: string
}

/**
 * The id of a rule every provider stream must keep, named in the `ConformanceError` of a stream that breaks it (its
 * fix is in `streamRuleFixes`).
 */
export type StreamRuleId =
  | 'provider.stream.finish-last'
  | 'provider.stream.error-terminal'
  | 'provider.stream.tool-call-order'
  | 'provider.stream.ends-with-finish'
  | 'provider.usage.non-negative'

/** How to fix each stream rule, in the words a provider author needs. */
export const streamRuleFixes: Record<StreamRuleId, string> = {
  'provider.stream.finish-last':
    'yield exactly one `finish` part per successful stream and make it the last part: map the protocol’s terminal event (e.g. `done: true`, `message_stop`, `response.completed`) to `finish`, then stop reading',
  'provider.stream.error-terminal': 'after yielding an `error` part (or throwing) yield nothing else, and never yield `finish` in a stream that failed',
  'provider.stream.tool-call-order':
    'emit `tool-call-start` (id, name) before any `tool-call-delta`/`tool-call-end` of that id, end each call exactly once, and end every open call before a `stop`/`tool-calls` finish; keep per-call state keyed by the protocol’s call id or index',
  'provider.stream.ends-with-finish':
    'a stream that does not fail must end with a `finish` part carrying the finish reason; when the wire ends without its terminal event, throw (or yield) a StreamInterruptedError instead of ending quietly',
  'provider.usage.non-negative':
    'report token counts as non-negative integers read from the API’s usage fields (e.g. prompt_eval_count → inputTokens, eval_count → outputTokens); never derive them by a subtraction that can go negative, and omit a count the API does not report',
}

/**
 * Checks a collected stream against the stream rules and returns every violation (empty when well formed):
 * one `finish`, last; nothing after an error; tool-call parts bracketed by start and end; a non-failed stream
 * ends with `finish`; usage counts are non-negative integers.
 *
 * @example
 * expect(streamRuleViolations(await collectStream(model.stream(request)))).toEqual([])
 */
export function streamRuleViolations(collected: Pick<CollectedStream, 'parts' | 'error'>): StreamRuleViolation[] {
  const violations: StreamRuleViolation[] = []
  const add = (rule: StreamRuleId, message: string) => violations.push({ rule, message })
  const started = new Set<string>()
  const ended = new Set<string>()
  let finishes = 0
  let failed = false
  collected.parts.forEach((part, index) => {
    if (finishes > 0) add('provider.stream.finish-last', `part #${index} (${part.type}) comes after finish`)
    if (failed) add('provider.stream.error-terminal', `part #${index} (${part.type}) comes after an error part`)
    switch (part.type) {
      case 'tool-call-start':
        if (started.has(part.id)) add('provider.stream.tool-call-order', `tool call ${part.id} started twice`)
        started.add(part.id)
        break
      case 'tool-call-delta':
        if (!started.has(part.id)) add('provider.stream.tool-call-order', `tool-call-delta for call ${part.id} before its tool-call-start`)
        if (ended.has(part.id)) add('provider.stream.tool-call-order', `tool-call-delta after the end of call ${part.id}`)
        break
      case 'tool-call-end':
        if (!started.has(part.id)) add('provider.stream.tool-call-order', `tool-call-end for call ${part.id} before any tool-call-start`)
        if (ended.has(part.id)) add('provider.stream.tool-call-order', `tool call ${part.id} ended twice`)
        ended.add(part.id)
        break
      case 'usage':
        usageViolations(part.usage, `usage part #${index}`).forEach((message) => add('provider.usage.non-negative', message))
        break
      case 'finish':
        if (part.usage) usageViolations(part.usage, `the usage of finish part #${index}`).forEach((message) => add('provider.usage.non-negative', message))
        if (part.finishReason === 'stop' || part.finishReason === 'tool-calls') {
          for (const id of started)
            if (!ended.has(id)) add('provider.stream.tool-call-order', `${part.finishReason} finish while tool call ${id} is still open`)
        }
        finishes++
        break
      case 'error':
        failed = true
        break
    }
  })
  if (finishes > 1) add('provider.stream.finish-last', `the stream yielded ${finishes} finish parts`)
  if (collected.error !== undefined && finishes > 0) add('provider.stream.error-terminal', 'the stream failed but also yielded finish')
  if (collected.error === undefined && finishes === 0) {
    add('provider.stream.ends-with-finish', `the stream ended after ${collected.parts.length} part(s) without a finish part and without an error`)
  }
  return violations
}

/**
 * Throws a `ConformanceError` naming the first broken stream rule (with every violation of that rule listed).
 */
export function assertStreamRules(collected: Pick<CollectedStream, 'parts' | 'error'>): void {
  const violations = streamRuleViolations(collected)
  if (violations.length === 0) return
  const rule = violations[0]!.rule
  const messages = violations.filter((violation) => violation.rule === rule).map((violation) => violation.message)
  const others = [...new Set(violations.map((violation) => violation.rule))].filter((other) => other !== rule)
  throw new ConformanceError(
    `[spindle/testing] Conformance rule "${rule}" is broken.\nHow to fix: ${streamRuleFixes[rule]}\nWhat failed: ${messages.join('; ')}` +
      (others.length > 0 ? `\nAlso broken: ${others.join(', ')}` : ''),
    { details: { rule, violations: violations.map((violation) => `${violation.rule}: ${violation.message}`) } },
  )
}

function usageViolations(usage: Usage, where: string): string[] {
  const messages: string[] = []
  for (const key of ['inputTokens', 'outputTokens', 'cachedInputTokens', 'reasoningTokens', 'totalTokens'] as const) {
    const value = usage[key]
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) messages.push(`${where} has ${key} = ${String(value)}`)
  }
  return messages
}
