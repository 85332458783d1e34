// What the provider conformance cases check with: an error's code, the stream's last usage, a condition in time.
import type { StreamPart } from '@spindle/core'

/** The usage a stream reported last (on its `finish` part or its last `usage` part), or undefined. */
export function lastUsage(parts: readonly StreamPart[]) {
  for (let index = parts.length - 1; index >= 0; index--) {
    const part = parts[index]!
    if (part.type === 'finish' && part.usage) return part.usage
    if (part.type === 'usage') return part.usage
  }
  return undefined
}

/** Polls `condition` every 10 ms; throws when it is still false after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Fails unless `error` carries one of the expected codes: "expected code context_overflow, got provider (…)". */
export function expectCode(error: unknown, code: string | string[]): void {
  const expected = [code].flat()
  const actual = (error as { code?: unknown } | undefined)?.code
  if (typeof actual === 'string' && expected.includes(actual)) return
  throw new Error(`expected code ${expected.join(' or ')}, got ${typeof actual === 'string' ? actual : 'no code'} (${describeError(error)})`)
}

/** An error as one line for a failure message: its name, code and message. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name} [${(error as { code?: string }).code ?? '-'}]: ${error.message}`
  return String(error)
}
