// Drains a LanguageModel stream into its parts and its failure, and checks the part-order invariants
// every provider must keep (one finish, last; tool-call parts bracketed by start and end).
import type { StreamPart, ToolCallPart } from '@spindle/core'

/**
 * A provider's stream read to its end by `collectStream`: every part, the error (thrown or yielded), the joined text
 * and reasoning, the completed tool calls and the finish part.
 */
export interface CollectedStream {
  parts: StreamPart[]
  /** The error the stream threw, or the first `error` part it yielded; `undefined` on success. */
  error: unknown
  /** `true` when the error was thrown (as opposed to yielded as an `error` part). */
  thrown: boolean
  text: string
  reasoning: string
  /** Completed tool calls (ended with `tool-call-end`), arguments joined from their deltas. */
  toolCalls: Array<{ id: string; name: string; args: string }>
  finish: Extract<StreamPart, { type: 'finish' }> | undefined
}

/**
 * Collects a stream. Never throws: the stream's error is returned in `error`.
 *
 * @example
 * const { text, finish } = await collectStream(model.stream({ messages }))
 */
export async function collectStream(stream: AsyncIterable<StreamPart>): Promise<CollectedStream> {
  const parts: StreamPart[] = []
  let error: unknown
  let thrown = false
  try {
    for await (const part of stream) {
      parts.push(part)
      if (part.type === 'error' && error === undefined) error = part.error
    }
  } catch (caught) {
    error = caught
    thrown = true
  }
  const calls = new Map<string, { id: string; name: string; args: string; ended: boolean }>()
  let text = ''
  let reasoning = ''
  for (const part of parts) {
    if (part.type === 'text-delta') text += part.delta
    else if (part.type === 'reasoning-delta') reasoning += part.delta
    else if (part.type === 'tool-call-start') calls.set(part.id, { id: part.id, name: part.name, args: '', ended: false })
    else if (part.type === 'tool-call-delta') {
      const call = calls.get(part.id)
      if (call) call.args += part.argsDelta
    } else if (part.type === 'tool-call-end') {
      const call = calls.get(part.id)
      if (call) call.ended = true
    }
  }
  const finish = parts.find((part): part is Extract<StreamPart, { type: 'finish' }> => part.type === 'finish')
  return {
    parts,
    error,
    thrown,
    text,
    reasoning,
    toolCalls: [...calls.values()].filter((call) => call.ended).map(({ id, name, args }) => ({ id, name, args })),
    finish,
  }
}

/**
 * Returns the invariant violations of a part sequence (empty when it is well formed):
 * at most one `finish`, and nothing after it; nothing after an `error` part; no `finish` together with
 * an `error`; every tool-call delta/end refers to a started call; no call ends twice; every started
 * call ends before a `stop` or `tool-calls` finish. (At a `length`, `content-filter` or `other` finish a call
 * may stay open: the output limit cut its arguments, and a consumer must discard it, never execute it.)
 */
export function streamInvariantViolations(parts: readonly StreamPart[]): string[] {
  const violations: string[] = []
  const started = new Set<string>()
  const ended = new Set<string>()
  let finished = false
  let failed = false
  parts.forEach((part, index) => {
    if (finished) violations.push(`part #${index} (${part.type}) comes after finish`)
    if (failed) violations.push(`part #${index} (${part.type}) comes after an error part`)
    switch (part.type) {
      case 'tool-call-start':
        if (started.has(part.id)) violations.push(`tool call ${part.id} started twice`)
        started.add(part.id)
        break
      case 'tool-call-delta':
        if (!started.has(part.id)) violations.push(`tool-call-delta for unknown call ${part.id}`)
        if (ended.has(part.id)) violations.push(`tool-call-delta after the end of call ${part.id}`)
        break
      case 'tool-call-end':
        if (!started.has(part.id)) violations.push(`tool-call-end for unknown call ${part.id}`)
        if (ended.has(part.id)) violations.push(`tool call ${part.id} ended twice`)
        ended.add(part.id)
        break
      case 'finish':
        if (part.finishReason === 'stop' || part.finishReason === 'tool-calls') {
          for (const id of started) if (!ended.has(id)) violations.push(`${part.finishReason} finish while tool call ${id} is still open`)
        }
        finished = true
        break
      case 'error':
        failed = true
        break
    }
  })
  return violations
}

/** Parses the joined arguments of collected tool calls, for assertions. */
export function parsedToolCalls(collected: CollectedStream): Array<Pick<ToolCallPart, 'toolCallId' | 'toolName' | 'args'>> {
  return collected.toolCalls.map((call) => ({ toolCallId: call.id, toolName: call.name, args: JSON.parse(call.args || '{}') }))
}
