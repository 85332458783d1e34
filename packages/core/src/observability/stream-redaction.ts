// Redaction of streamed text: a model streams a key a few characters per delta, so no delta holds a whole secret.
// The trailing run of characters a key or token is made of (letters, digits, `-_.~+/=`, and the characters of the
// configured secrets) is held back until the run ends (a space, a quote, a line end…) or the part does (flush),
// then redacted with the text sent just before it as context (`Bearer ` sent, then its token). Whitespace,
// punctuation and text in other scripts go out at once, so a delta waits at most for the end of its word.
import type { Redactor } from './redactor.js'

/** A run longer than this goes out anyway (no key is this long; a JWT is about 1 KB). */
const maxHeld = 4096
/** How much of the text already sent is kept as the context of the next redaction (`Authorization: Bearer ` and more). */
const contextLength = 48

/** Char codes below 128 that a key or token is made of: letters, digits and `-_.~+/=`. */
const tokenCodes = new Uint8Array(128)
for (const char of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=') tokenCodes[char.charCodeAt(0)] = 1

export class StreamRedaction {
  readonly #redactor: Redactor
  /** Per char code below 128: part of a secret's run. Above 127: `#extra` (the secrets' own characters). */
  readonly #codes: Uint8Array
  readonly #extra: ReadonlySet<number> | undefined
  #held = ''
  #context = ''
  /** Whether the text sent last ended inside a secret (its replacement covers what follows of it). */
  #open = false

  constructor(redactor: Redactor) {
    this.#redactor = redactor
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
    this.#codes = codes
    this.#extra = extra
  }

  /** Whether text is held back (a `flush()` would return something). */
  get holding(): boolean {
    return this.#held.length > 0
  }

  /** What of the text so far can go out now, redacted ('' while all of it is held back). */
  push(delta: string): string {
    // Only the new delta is scanned: the text held back is one run already.
    let cut = delta.length
    while (cut > 0 && this.#inRun(delta.charCodeAt(cut - 1))) cut--
    if (cut === 0) {
      this.#held += delta
      if (this.#held.length <= maxHeld) return ''
      return this.flush()
    }
    let ready = this.#held.length ? this.#held + delta.slice(0, cut) : cut === delta.length ? delta : delta.slice(0, cut)
    this.#held = cut === delta.length ? '' : delta.slice(cut)
    // A secret phrase (with spaces) is held from its first characters on, until it is whole or cannot be it.
    const phrase = this.#redactor.secretPrefixAtEnd?.(ready) ?? 0
    if (phrase > 0) {
      this.#held = ready.slice(ready.length - phrase) + this.#held
      ready = ready.slice(0, ready.length - phrase)
      if (this.#held.length > maxHeld) return this.#send(ready) + this.flush()
      if (ready === '') return ''
    }
    return this.#send(ready)
  }

  /** The text held back, redacted; what follows starts without context (a new part). */
  flush(): string {
    const text = this.#held
    this.#held = ''
    const sent = text ? this.#send(text) : ''
    this.#context = ''
    this.#open = false
    return sent
  }

  #inRun(code: number): boolean {
    return code < 128 ? this.#codes[code] === 1 : this.#extra !== undefined && this.#extra.has(code)
  }

  #send(text: string): string {
    const redactor = this.#redactor
    let sent: string
    if (redactor.redactAppended) {
      const redacted = redactor.redactAppended(this.#context, text, this.#open)
      sent = redacted.text
      this.#open = redacted.open
    } else sent = redactor.redact(text)
    const context = this.#context.length ? this.#context + text : text
    this.#context = context.length > contextLength ? context.slice(-contextLength) : context
    return sent
  }
}
