// Redaction of secrets (API keys, bearer tokens, configured values) from everything a run sends out for observation.
// Redacted: every event before it leaves `emit` (stream, subscribe, the run's event log, observers, hence spans
// and metrics), the error serialized onto the run state (run record, snapshots, run output, `run.failed`), and the
// answer so far in a snapshot (`state.text`; a resume rebuilds it from the session log).
// Not redacted, by design: the session log (the model's memory), the tool journal and the run record's copy of
// the input — the data a resumed run replays, which must stay what the model and tools actually saw. Tool call
// arguments in a snapshot's pending calls are resume data too. Streamed text deltas are held back to a whole
// word before they are redacted (see stream-redaction.ts), so a key split across deltas is caught too.
import type { AgentEvent } from '../spec/events.js'

/** What `createRedactor` hides: literal secrets, the values of environment variables, and patterns (added to `defaultSecretPatterns` unless turned off). */
export interface RedactorOptions {
  /** Literal secret values to hide, of any length (besides the environment variables below). */
  secrets?: string[]
  /**
   * Names of environment variables whose values are secrets. Default: `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`
   * and every variable whose name ends in `_KEY`, `_TOKEN` or `_SECRET` (values shorter than 8 characters are ignored).
   */
  envVars?: string[]
  /**
   * Extra patterns to hide. Added to the defaults unless `defaultPatterns` is false. Each whole match is
   * replaced, capture groups included. A prefix to keep (a header name) goes in a lookbehind, as in the built-in
   * `Authorization` pattern: `/(?<=password=)\S+/g` — though a leading lookbehind slows the scan of every string.
   */
  patterns?: RegExp[]
  /** Keep the built-in patterns (`sk-…`, `sk-ant-…`, `Bearer …`, `Authorization: …`, a URL's password `://user:…@`). Default true. */
  defaultPatterns?: boolean
  /** The environment to read (default `process.env`), read once when the redactor is created. */
  env?: Record<string, string | undefined>
  /** What a secret is replaced with. Default `[REDACTED]`. */
  replacement?: string
}

/** Replaces secrets with `[REDACTED]` in text, JSON values and events; the kernel applies `extensions.redactor` to every event it emits. */
export interface Redactor {
  /** The text with every secret replaced. */
  redact(text: string): string
  /** A copy of a JSON-like value with every string redacted; the same reference when nothing changed. */
  redactValue<T>(value: T): T
  /** An event with its payload redacted; the same object when nothing changed. */
  redactEvent<E extends AgentEvent>(event: E): E
  /** A serialized error (`{ code, message }`) with its message redacted. */
  redactError<E extends { code: string; message: string }>(error: E): E
  /**
   * Optional: `text` redacted as what follows `context`, the text sent (redacted) just before it: a secret that
   * starts in `context` has its part in `text` replaced (`Bearer ` sent, then the token), or dropped when
   * `continued` (what was sent before ended with a replacement: it covers this part too). `open` says whether a
   * match reaches the end of `text` (the secret may go on). Streamed text deltas use it; without it they are
   * redacted with `redact()` alone. With `lookahead`, the last `lookahead` characters of `text` are only looked at
   * (a secret that starts before them is found whole), not sent: `sent` says how many characters of `text` the
   * result covers (more than `text.length - lookahead` when a secret crosses that point).
   */
  redactAppended?(context: string, text: string, continued: boolean, lookahead?: number): { text: string; open: boolean; sent?: number }
  /**
   * Optional: how many characters streamed text must see past a point before the text up to it can be redacted
   * and sent (the longest literal secret, and at least 64 for the patterns). Streaming holds back a long unbroken
   * word only this much, plus a little, instead of to its end.
   */
  streamLookahead?(): number
  /** Optional: the characters of the literal secrets (streamed text is held back while it could be one of them). */
  secretChars?(): string
  /**
   * Optional: how many characters at the end of `text` begin a literal secret that contains whitespace (a phrase
   * such as `open sesame now`), 0 when none does. Streamed text holds them back, as whitespace ends a held word.
   */
  secretPrefixAtEnd?(text: string): number
}

/** Whether a literal holds a character a streamed word ends at: whitespace or a control character (code ≤ 0x20). */
function hasWordBreak(literal: string): boolean {
  for (let index = 0; index < literal.length; index++) if (literal.charCodeAt(index) <= 0x20) return true
  return false
}

/** An `Authorization` header name and separator: kept, being a lookbehind of the pattern, not part of its match. */
const authorizationName = String.raw`\bAuthorization["']?\s*[:=]\s*["']?`
/** The header's value: from its first character to a quote, a line end, a comma or a brace. */
const authorizationValue = String.raw`[^\s"',}][^"'\r\n,}]*`

/** A URL's scheme and user name (`postgres://app:`), kept: the lookbehind of the password pattern. */
const urlUserName = String.raw`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]{0,256}:`
/** The password of a URL's userinfo: up to the `@` that ends it (a lookahead, kept). */
const urlPassword = String.raw`[^\s/?#@:]{1,512}(?=@)`

/**
 * A URL's password still going at the end of streamed text (no `@` yet): the password pattern cannot be decided
 * before its `@`, which may come up to 512 characters later, past a long word's cut.
 */
const urlPasswordAtEnd = new RegExp(String.raw`://[^\s/?#@:]{0,256}:([^\s/?#@:]{1,512})$`)

/**
 * The built-in secret patterns: OpenAI / Anthropic keys, bearer tokens, Authorization header values and the
 * password in a URL (`postgres://app:[REDACTED]@db`). Like every pattern, each replaces its whole match;
 * `Authorization: ` and a URL's user name stay because they sit in a lookbehind.
 */
export const defaultSecretPatterns: readonly RegExp[] = [
  /\bsk-ant-[A-Za-z0-9_-]{8,}/g,
  /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{16,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  new RegExp(`(?<=${authorizationName})${authorizationValue}`, 'gi'),
  new RegExp(`(?<=${urlUserName})${urlPassword}`, 'g'),
]

/**
 * What the detector scans for instead of a pattern whose own source is slow to scan for (a leading lookbehind
 * is tried at every position of every string: 30 times slower on plain text). Found whenever the pattern is.
 */
const detectorSources = new Map([
  [defaultSecretPatterns[3]!.source, `${authorizationName}${authorizationValue}`],
  // The scheme is left out: a literal `://` is found fast, a scheme tried at every word start is not (4x on prose).
  [defaultSecretPatterns[4]!.source, String.raw`://[^\s/?#@:]{0,256}:[^\s/?#@:]{1,512}@`],
])

const defaultEnvVars = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY']
/** Event fields the kernel fills itself (ids, names, counters): never user content, never scanned. */
const structuralEventKeys = new Set([
  'type',
  'runId',
  'sessionId',
  'parentRunId',
  'seq',
  'timestamp',
  'step',
  'callId',
  'toolName',
  'durationMs',
  'version',
  'fromStep',
  'finishReason',
  'usage',
  'steps',
  'strategy',
  'throughSeq',
  'tokensBefore',
  'tokensAfter',
  'from',
  'to',
  'reused',
])
/** The payload fields of the kernel's events (the fields that can carry user content), by type: no key scan per event. */
const payloadKeys: Partial<Record<string, readonly string[]>> = {
  'run.started': ['agent', 'modelId', 'input'],
  'run.resumed': ['agent', 'modelId'],
  'step.started': [],
  'text.delta': ['delta'],
  'reasoning.delta': ['delta'],
  'tool.call': ['args'],
  'tool.started': [],
  'tool.result': ['result'],
  'tool.error': ['error'],
  'approval.requested': ['args'],
  'agent.handoff': [],
  'compaction.applied': [],
  'snapshot.saved': [],
  'step.finished': [],
  'run.finished': ['text'],
  'run.failed': ['error'],
}
const secretEnvName = /(_KEY|_TOKEN|_SECRET)$/i
/** How far past a point a pattern's match must be decidable (the built-in ones need at most 19 characters). */
const patternLookahead = 64
const minimumSecretLength = 8

interface CompiledMatchers {
  /** Global copies of the patterns (their `lastIndex` is reset before each use, so redactors may share them). */
  patterns: RegExp[]
  /** One scan decides whether a string needs work at all (most do not): a case-insensitive union of everything. */
  detector: RegExp | undefined
}

/** The same secrets and patterns compile to the same expressions: kept for the process, up to 32 sets. */
const compiledCache = new Map<string, CompiledMatchers>()

function compiledMatchers(sortedLiterals: readonly string[], sourcePatterns: readonly RegExp[]): CompiledMatchers {
  const key = JSON.stringify([sortedLiterals, sourcePatterns.map((pattern) => [pattern.source, pattern.flags])])
  const cached = compiledCache.get(key)
  if (cached) return cached
  const patterns = sourcePatterns.map((pattern) => new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))
  const flags = new Set(patterns.flatMap((pattern) => [...pattern.flags]).filter((flag) => flag !== 'g' && flag !== 'y'))
  flags.add('i')
  const sources = [...sortedLiterals.map(escapeRegExp), ...patterns.map((pattern) => `(?:${detectorSources.get(pattern.source) ?? pattern.source})`)]
  const compiled = { patterns, detector: sources.length ? new RegExp(sources.join('|'), [...flags].join('')) : undefined }
  if (compiledCache.size >= 32) compiledCache.delete(compiledCache.keys().next().value!)
  compiledCache.set(key, compiled)
  return compiled
}

/** The marker every Spindle package puts where a secret was (the redactor's default replacement, providers' error scrubbing). */
export const redactionMarker = '[REDACTED]'

/**
 * Creates a redactor. The kernel uses `extensions.redactor` (on by default) on every event before it leaves
 * `emit` (stream, subscribe, run event log, observers) and on error messages stored on runs and snapshots.
 *
 * @example
 * const redactor = createRedactor({ secrets: [process.env.MY_SERVICE_PASSWORD!], patterns: [/ghp_[A-Za-z0-9]{36}/g] })
 * redactor.redact('key sk-abcdefghijklmnopqrstuv') // 'key [REDACTED]'
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const replacement = options.replacement ?? redactionMarker
  const env = options.env ?? (typeof process !== 'undefined' ? process.env : {})
  const literals = new Set<string>()
  for (const secret of options.secrets ?? []) if (secret) literals.add(secret)
  const names = new Set([...defaultEnvVars, ...(options.envVars ?? [])])
  // Names first, then only the values of the names that match: each read of `process.env` is a call into Node
  // (reading all of them was two thirds of creating a redactor, and a runtime creates one).
  for (const name of Object.keys(env)) {
    if (!names.has(name) && !(options.envVars === undefined && secretEnvName.test(name))) continue
    const value = env[name]
    if (value && value.length >= minimumSecretLength) literals.add(value)
  }
  for (const name of options.envVars ?? []) {
    const value = env[name]
    if (value && value.length >= minimumSecretLength) literals.add(value)
  }
  const watchUrlPasswords = options.defaultPatterns !== false
  const sourcePatterns = [...(watchUrlPasswords ? defaultSecretPatterns : []), ...(options.patterns ?? [])]
  // Longest literals first, so that a secret containing another is replaced whole.
  const sortedLiterals = [...literals].sort((a, b) => b.length - a.length)
  const { patterns, detector } = compiledMatchers(sortedLiterals, sourcePatterns)
  // Shorter text cannot hold a secret: at least 8 characters for the built-in patterns and env values, but a
  // configured literal may be shorter (a PIN), and a custom pattern may match any length.
  const shortestSecret = options.patterns?.length ? 1 : Math.min(minimumSecretLength, ...sortedLiterals.map((literal) => literal.length))

  const redact = (text: string): string => {
    if (text.length < shortestSecret) return text
    if (!detector || !detector.test(text)) return text
    let result = text
    for (const literal of sortedLiterals) if (result.includes(literal)) result = result.split(literal).join(replacement)
    for (const pattern of patterns) {
      pattern.lastIndex = 0
      if (!pattern.test(result)) continue
      pattern.lastIndex = 0
      // The whole match goes, whatever groups a pattern has (a user's group is part of the secret); a function,
      // so that `$&` or `$1` in a configured replacement is not expanded.
      result = result.replace(pattern, () => replacement)
    }
    return result
  }

  const redactValue = <T>(value: T): T => {
    if (typeof value === 'string') return redact(value) as T
    if (value === null || typeof value !== 'object') return value
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined
      for (let index = 0; index < value.length; index++) {
        const item = value[index]
        const redacted = redactValue(item)
        if (redacted !== item) {
          copy ??= value.slice()
          copy[index] = redacted
        }
      }
      return (copy ?? value) as T
    }
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value
    let copy: Record<string, unknown> | undefined
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key]
      const redacted = redactValue(item)
      if (redacted !== item) {
        copy ??= { ...(value as Record<string, unknown>) }
        copy[key] = redacted
      }
    }
    return (copy ?? value) as T
  }

  /** `text` redacted as the continuation of `context`: only the parts of matches that lie in `text` are replaced. */
  const redactAppended = (context: string, text: string, continued: boolean, lookahead = 0): { text: string; open: boolean; sent: number } => {
    const whole = context.length ? context + text : text
    const from = context.length
    // Where the part to send ends: a match starting before it is replaced whole (and sent through its end).
    const limit = whole.length - Math.max(0, Math.min(lookahead, text.length))
    // At a cut, a URL's password that starts before it and is still going is hidden through the end (it cannot be
    // told from a long word yet, and what went out could not be taken back): `open`, so the rest of it is dropped.
    const pending = lookahead > 0 && watchUrlPasswords ? urlPasswordAtEnd.exec(whole) : null
    const pendingStart = pending ? whole.length - pending[1]!.length : limit
    const ranges: Array<[number, number]> = pendingStart < limit ? [[Math.max(from, pendingStart), whole.length]] : []
    if (ranges.length === 0 && (whole.length < shortestSecret || !detector || !detector.test(whole)))
      return { text: whole.slice(from, limit), open: false, sent: limit - from }
    for (const literal of sortedLiterals) {
      for (let at = whole.indexOf(literal); at >= 0; at = whole.indexOf(literal, at + literal.length))
        if (at + literal.length > from) ranges.push([at, at + literal.length])
    }
    for (const pattern of patterns) {
      pattern.lastIndex = 0
      for (let match = pattern.exec(whole); match; match = pattern.exec(whole)) {
        if (match[0].length === 0) pattern.lastIndex++
        else if (match.index + match[0].length > from) ranges.push([match.index, match.index + match[0].length])
      }
    }
    if (ranges.length === 0) return { text: whole.slice(from, limit), open: false, sent: limit - from }
    ranges.sort((a, b) => a[0] - b[0])
    let result = ''
    let at = from
    // Whether `result` ends with a replacement that ends at `at` (at first: the one sent before, if any).
    let replaced = continued
    for (const [start, end] of ranges) {
      if (end <= at) continue
      const merges = start <= at && (replaced || start < from)
      if (!merges && start >= limit) break
      if (merges) {
        // Overlapping or touching a replacement already written (or sent): that replacement covers it.
        if (!replaced) result += replacement
        replaced = true
        at = end
        continue
      }
      result += whole.slice(at, start) + replacement
      replaced = true
      at = end
    }
    const end = Math.max(at, limit)
    return { text: result + whole.slice(at, end), open: replaced && at === end, sent: end - from }
  }

  const secretChars = [...new Set(sortedLiterals.join(''))].join('')
  const lookahead = Math.max(patternLookahead, sortedLiterals[0]?.length ?? 0)
  // Literals with whitespace or control characters: a held word ends at those, so their prefixes are held apart.
  const spaced = sortedLiterals.filter(hasWordBreak)
  const secretPrefixAtEnd = (text: string): number => {
    let longest = 0
    for (const literal of spaced) {
      // The longest proper prefix of the literal that `text` ends with.
      for (let length = Math.min(literal.length - 1, text.length); length > longest; length--) {
        if (text.endsWith(literal.slice(0, length))) {
          longest = length
          break
        }
      }
    }
    return longest
  }

  return {
    redact,
    redactAppended,
    secretChars: () => secretChars,
    streamLookahead: () => lookahead,
    ...(spaced.length > 0 && { secretPrefixAtEnd }),
    redactValue,
    redactEvent: (event) => {
      // Only payload fields can carry user content; ids, types and counters are the kernel's own.
      const known = payloadKeys[event.type]
      if (known !== undefined) {
        let copy: Record<string, unknown> | undefined
        for (let index = 0; index < known.length; index++) {
          const key = known[index]!
          const item = (event as unknown as Record<string, unknown>)[key]
          if (item === undefined) continue
          const redacted = redactValue(item)
          if (redacted !== item) {
            copy ??= { ...(event as unknown as Record<string, unknown>) }
            copy[key] = redacted
          }
        }
        return (copy ?? event) as typeof event
      }
      let copy: Record<string, unknown> | undefined
      for (const key in event) {
        if (structuralEventKeys.has(key)) continue
        const item = (event as unknown as Record<string, unknown>)[key]
        const redacted = redactValue(item)
        if (redacted !== item) {
          copy ??= { ...(event as unknown as Record<string, unknown>) }
          copy[key] = redacted
        }
      }
      return (copy ?? event) as typeof event
    },
    redactError: (error) => {
      const message = redact(error.message)
      return message === error.message ? error : { ...error, message }
    },
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
