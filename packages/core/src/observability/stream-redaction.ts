// Redaction of streamed text: a model streams a key a few characters per delta, so no delta holds a whole secret.
// The trailing run of characters a key or token is made of (letters, digits, `-_.~+/=`, and the characters of the
// configured secrets) is held back until the run ends (a space, a quote, a line end…) or the part does (flush),
// then redacted with the text sent just before it as context (`Bearer ` sent, then its token). Whitespace,
// punctuation and text in other scripts go out at once, so a delta waits at most for the end of its word.
// A long unbroken word (base64, minified code) is not held to its end: past `maxHoldBack` characters, all but the
// redactor's lookahead goes out, redacted with that lookahead in view, so a secret crossing the cut is replaced
// whole; one still going at the end of the held text hides the rest of its word.
import type { Redactor } from './redactor.js'

/** Most characters held back, unless the redactor's lookahead (its longest literal secret) needs more. */
export const maxHoldBack = 256
/** The lookahead of a redactor that does not say (`streamLookahead`). */
const defaultLookahead = 64
/** How much of the text already sent is kept as the context of the next redaction (`Authorization: Bearer ` and more). */
const contextLength = 48

/** Char codes below 128 that a key or token is made of: letters, digits and `-_.~+/=`. */
const tokenCodes = new Uint8Array(128)
for (const char of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=') tokenCodes[char.charCodeAt(0)] = 1

/**
 * The redaction of one run's streamed text. `new StreamRedaction(redactor)` returns one literal with every field and
 * these methods as own properties (see `streamRedaction`): a run builds one, and a class instance's hidden class dies
 * at a full GC when no run is alive, with the code compiled against it (see util/fast-path.ts).
 */
export class StreamRedaction {
  declare readonly redactor: Redactor
  /** Per char code below 128: part of a secret's run. Above 127: `extra` (the secrets' own characters). */
  declare readonly codes: Uint8Array
  declare readonly extra: ReadonlySet<number> | undefined
  /** The text held back. */
  declare held: string
  declare context: string
  /** Whether the text sent last ended inside a secret (its replacement covers what follows of it). */
  declare open: boolean
  /** Whether the rest of the current word is dropped: a secret reached the end of the text released early. */
  declare swallowing: boolean
  /** Characters kept in view past a cut, and the most held back (at least twice that). */
  declare readonly lookahead: number
  declare readonly limit: number

  constructor(redactor: Redactor) {
    return streamRedaction(redactor)
  }

  /** How many characters are held back now (never more than `maxHoldBack`, or twice the redactor's lookahead). */
  heldLength(): number {
    return this.held.length
  }

  /** Whether text is held back (a `flush()` would return something). */
  holding(): boolean {
    return this.held.length > 0
  }

  /** What of the text so far can go out now, redacted ('' while all of it is held back). */
  push(delta: string): string {
    if (this.swallowing) {
      let end = 0
      while (end < delta.length && this.inRun(delta.charCodeAt(end))) end++
      if (end === delta.length) return ''
      this.swallowing = false
      delta = delta.slice(end)
    }
    // Only the new delta is scanned: the text held back is one run already.
    let cut = delta.length
    while (cut > 0 && this.inRun(delta.charCodeAt(cut - 1))) cut--
    if (cut === 0) {
      this.held += delta
      return this.held.length <= this.limit ? '' : this.release()
    }
    let ready = this.held.length ? this.held + delta.slice(0, cut) : cut === delta.length ? delta : delta.slice(0, cut)
    this.held = cut === delta.length ? '' : delta.slice(cut)
    // A secret phrase (with spaces) is held from its first characters on, until it is whole or cannot be it.
    const phrase = this.redactor.secretPrefixAtEnd?.(ready) ?? 0
    if (phrase > 0) {
      this.held = ready.slice(ready.length - phrase) + this.held
      ready = ready.slice(0, ready.length - phrase)
      if (ready === '') return this.held.length <= this.limit ? '' : this.release()
    }
    const sent = this.send(ready)
    return this.held.length <= this.limit ? sent : sent + this.release()
  }

  /** The text held back, redacted; what follows starts without context (a new part). */
  flush(): string {
    const text = this.held
    this.held = ''
    const sent = text ? this.send(text) : ''
    this.context = ''
    this.open = false
    this.swallowing = false
    return sent
  }

  /** Sends all but the lookahead of the held text, redacted with the lookahead in view. */
  release(): string {
    const held = this.held
    const redactor = this.redactor
    if (!redactor.redactAppended) {
      this.held = ''
      return this.send(held)
    }
    const redacted = redactor.redactAppended(this.context, held, this.open, this.lookahead)
    const sentLength = redacted.sent ?? held.length
    const sentText = held.slice(0, sentLength)
    this.held = held.slice(sentLength)
    this.open = redacted.open
    // A secret reaching the end of what is held may go on: the rest of its word is covered by its replacement.
    if (redacted.open && this.held === '') this.swallowing = true
    const context = this.context.length ? this.context + sentText : sentText
    this.context = context.length > contextLength ? context.slice(-contextLength) : context
    return redacted.text
  }

  inRun(code: number): boolean {
    return code < 128 ? this.codes[code] === 1 : this.extra !== undefined && this.extra.has(code)
  }

  send(text: string): string {
    const redactor = this.redactor
    let sent: string
    if (redactor.redactAppended) {
      const redacted = redactor.redactAppended(this.context, text, this.open)
      sent = redacted.text
      this.open = redacted.open
    } else sent = redactor.redact(text)
    const context = this.context.length ? this.context + text : text
    this.context = context.length > contextLength ? context.slice(-contextLength) : context
    return sent
  }
}

const methods = StreamRedaction.prototype

/** The redaction of a run's streamed text through `redactor` (what `new StreamRedaction(redactor)` returns). */
export function streamRedaction(redactor: Redactor): StreamRedaction {
  const secretChars = redactor.secretChars?.() ?? ''
  let codes = tokenCodes
  let extra: Set<number> | undefined
  for (let index = 0; index < secretChars.length; index++) {
    const code = secretChars.charCodeAt(index)
    if (code > 0x20 && code < 128 && !codes[code]) {
      if (codes === tokenCodes) codes = tokenCodes.slice()
      codes[code] = 1
    } else if (code >= 128) (extra ??= new Set()).add(code)
  }
  const lookahead = Math.max(1, redactor.streamLookahead?.() ?? defaultLookahead)
  return {
    redactor,
    codes,
    extra,
    held: '',
    context: '',
    open: false,
    swallowing: false,
    lookahead,
    limit: Math.max(maxHoldBack, 2 * lookahead),
    heldLength: methods.heldLength,
    holding: methods.holding,
    push: methods.push,
    flush: methods.flush,
    release: methods.release,
    inRun: methods.inRun,
    send: methods.send,
  }
}
