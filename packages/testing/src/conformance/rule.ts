// rule(): runs one assertion of a conformance check and, when it fails, says which spec rule broke and how to fix it.
import { ConformanceError, SpindleError } from '@spindle/core'

/**
 * Runs `check`; a failure is rethrown as a `ConformanceError` naming the rule and the fix, with the original
 * error as `cause` (and `details.rule`).
 *
 * @example
 * await rule('session.append.gap-free', 'assign seq = lastSeq + 1… inside the insert transaction', async () => {
 *   expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3])
 * })
 */
export async function rule<T>(id: string, fix: string, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check()
  } catch (error) {
    if (ConformanceError.isInstance(error)) throw error
    const reason = error instanceof Error ? error.message : String(error)
    throw new ConformanceError(`[spindle/testing] Conformance rule "${id}" is broken.\nHow to fix: ${fix}\nWhat failed: ${reason}`, {
      cause: error,
      details: { rule: id },
    })
  }
}

/**
 * A rule's failure, with the key `skip` takes added to its first line: the check (store suites) or case (provider
 * suite) that ran the rule. The rule id and that key can differ (rule `run.list.order` breaks in check
 * `run.list.newest-first`), and `skip` only knows checks and cases. Other errors are returned unchanged.
 */
export function withSkipKey(error: unknown, kind: 'check' | 'case', key: string): unknown {
  if (!ConformanceError.isInstance(error) || error.details?.[kind] !== undefined) return error
  const [first = '', ...rest] = error.message.split('\n')
  const message = [`${first.replace(/\.$/, '')} (${kind} ${key} — skip it with that ${kind === 'check' ? 'id' : 'name'}).`, ...rest].join('\n')
  const named = new ConformanceError(message, { cause: error.cause, details: { ...error.details, [kind]: key } })
  if (error.stack !== undefined) named.stack = error.stack.replace(error.message, () => message)
  return named
}

/** The rule id carried by a ConformanceError, if any. */
export function ruleOf(error: unknown): string | undefined {
  if (!ConformanceError.isInstance(error)) return undefined
  const rule = error.details?.rule
  return typeof rule === 'string' ? rule : undefined
}

/**
 * Awaits `action` and returns the error it rejects with; fails when it resolves or when `accept` refuses the error.
 */
export async function rejection(action: () => unknown, expected: { code?: string; name?: string } = {}): Promise<unknown> {
  let outcome: { ok: true; value: unknown } | { ok: false; error: unknown }
  try {
    outcome = { ok: true, value: await action() }
  } catch (error) {
    outcome = { ok: false, error }
  }
  const wanted = expected.name ?? (expected.code === undefined ? 'an error' : `a SpindleError with code "${expected.code}"`)
  if (outcome.ok) throw new Error(`expected ${wanted}, but the call resolved with ${preview(outcome.value)}`)
  const error = outcome.error
  if (expected.code !== undefined) {
    const code = SpindleError.isInstance(error) ? error.code : undefined
    if (code !== expected.code) {
      throw new Error(`expected ${wanted}, but it rejected with ${describeError(error)}`, { cause: error })
    }
  }
  return error
}

function describeError(error: unknown): string {
  if (SpindleError.isInstance(error)) return `${error.name} (code "${error.code}"): ${error.message}`
  if (error instanceof Error) return `${error.name} (not a SpindleError): ${error.message}`
  return preview(error)
}

function preview(value: unknown): string {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text
  } catch {
    return String(value)
  }
}
