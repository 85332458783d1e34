// Streamed text redaction: a secret that arrives a few characters per delta never goes out, and the text around it
// is held back no longer than the end of its word.
import { describe, expect, it } from 'vitest'
import { createRedactor } from './redactor.js'
import { maxHoldBack, StreamRedaction } from './stream-redaction.js'

const key = 'sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
const password = 'p@ss:w0rd!é-long'

/** Feeds `text` in deltas of `size` characters; returns what went out at each push, then the flush. */
function stream(text: string, size: number, redaction = new StreamRedaction(createRedactor({ env: {}, secrets: [password] }))): string[] {
  const sent: string[] = []
  for (let at = 0; at < text.length; at += size) sent.push(redaction.push(text.slice(at, at + size)))
  sent.push(redaction.flush())
  return sent
}

describe('StreamRedaction', () => {
  it('catches a key, a bearer token, a configured secret and an Authorization value split across deltas', () => {
    const text = `here ${key}, "json":"${key}" then Bearer abcdefgh12345678 and ${password} ok\nAuthorization: Basic dXNlcjpwYXNz, done 完了`
    for (const size of [1, 2, 3, 5, 7]) {
      const joined = stream(text, size).join('')
      expect(joined, `size ${size}`).toBe('here [REDACTED], "json":"[REDACTED]" then Bearer [REDACTED] and [REDACTED] ok\nAuthorization: [REDACTED], done 完了')
      for (const secret of [key.slice(8), 'abcdefgh12345678', 'w0rd', 'dXNlcjpwYXNz']) expect(joined).not.toContain(secret)
    }
  })

  it("catches a URL's password split across deltas, and keeps the rest of the URL", () => {
    const text = 'connect with postgres://app:s3cr3t-Pa55word@db.internal:5432/main?sslmode=require, then https://example.com/a:b@c'
    for (const size of [1, 2, 3, 5, 7, 11]) {
      const joined = stream(text, size, new StreamRedaction(createRedactor({ env: {} }))).join('')
      expect(joined, `size ${size}`).toBe('connect with postgres://app:[REDACTED]@db.internal:5432/main?sslmode=require, then https://example.com/a:b@c')
      expect(joined).not.toContain('Pa55')
    }
  })

  it('holds a secret phrase with spaces from its first characters until it is whole or cannot be it', () => {
    const phrase = 'open sesame\tnow please'
    const redaction = () => new StreamRedaction(createRedactor({ env: {}, secrets: [phrase] }))
    const text = `say open the door, then open sesame\tnow please. open sesame\tnow please! open sesame\tno`
    for (const size of [1, 2, 3, 4, 7]) {
      const sent = stream(text, size, redaction())
      expect(sent.join(''), `size ${size}`).toBe('say open the door, then [REDACTED]. [REDACTED]! open sesame\tno')
      // Nothing of a phrase that turns out to be the secret went out before it was whole.
      let out = ''
      for (const piece of sent) {
        out += piece
        expect(out, `size ${size}`).not.toMatch(/then open|\. open|then o$|\. o$/)
      }
    }
    // Without such a secret, nothing is held past its word.
    expect(stream('open sesame', 1, new StreamRedaction(createRedactor({ env: {} })))[4]).toBe('open ')
  })

  it('holds back only the word in progress: whitespace, punctuation and other scripts go out at once', () => {
    const redaction = new StreamRedaction(createRedactor({ env: {} }))
    expect(redaction.push('Hello')).toBe('')
    expect(redaction.holding()).toBe(true)
    expect(redaction.push(' wor')).toBe('Hello ')
    expect(redaction.push('ld! ')).toBe('world! ')
    expect(redaction.holding()).toBe(false)
    expect(redaction.push('{"a":1,"b"')).toBe('{"a":1,"b"')
    expect(redaction.push('日本語のテキスト')).toBe('日本語のテキスト')
    expect(redaction.push('tail')).toBe('')
    expect(redaction.flush()).toBe('tail')
    expect(redaction.flush()).toBe('')
  })

  it('keeps a long unbroken word streaming: 600 one-character deltas go out in several pieces, never more than 256 held', () => {
    const word = 'Zm9vYmFy+YmF6/cXV4='.repeat(40).slice(0, 600)
    const redaction = new StreamRedaction(createRedactor({ env: {} }))
    const sent: string[] = []
    let maxHeld = 0
    for (const char of word) {
      sent.push(redaction.push(char))
      maxHeld = Math.max(maxHeld, redaction.heldLength())
    }
    sent.push(redaction.flush())
    expect(sent.join('')).toBe(word)
    expect(maxHeld).toBeLessThanOrEqual(maxHoldBack)
    expect(maxHeld).toBe(maxHoldBack) // it does hold up to the bound: a key is found whole within it
    expect(sent.filter((piece) => piece !== '').length).toBeGreaterThanOrEqual(3)
    // Each piece goes out as soon as the bound is passed, not at the end of the word.
    expect(sent.findIndex((piece) => piece !== '')).toBe(maxHoldBack)
  })

  it('still never lets out a key or a configured secret split across one-character deltas inside a long word, wherever the cut falls', () => {
    const configured = 'hunter2-payments-secret'
    const filler = 'abcd+efgh/ijkl='.repeat(40)
    for (let offset = 150; offset < 500; offset += 13) {
      const key = 'sk-proj-S3CR3TKEYS3CR3TKEYS3CR3TKEY0042'
      const text = `${filler.slice(0, offset)}/${key}+${filler.slice(0, 200)}=${configured}=${filler.slice(0, 300)}`
      const redaction = new StreamRedaction(createRedactor({ env: {}, secrets: [configured] }))
      let out = ''
      let maxHeld = 0
      for (const char of text) {
        const piece = redaction.push(char)
        out += piece
        maxHeld = Math.max(maxHeld, redaction.heldLength())
        // Checked as it goes out: a fragment sent early and covered later would still have leaked.
        if (piece && /S3CR3|KEY0042|hunter2|payments-secret/.test(out)) expect.fail(`offset ${offset}: leaked in ${out.slice(-80)}`)
      }
      expect(maxHeld).toBeLessThanOrEqual(maxHoldBack)
      out += redaction.flush()
      for (const piece of ['S3CR3', '0042', 'hunter2', 'payments-secret']) expect(out, `offset ${offset}`).not.toContain(piece)
      // The text before the key, and the text around the configured secret, is all there.
      expect(out.startsWith(`${filler.slice(0, offset)}/[REDACTED]`), `offset ${offset}`).toBe(true)
      expect(out.endsWith(`=[REDACTED]=${filler.slice(0, 300)}`), `offset ${offset}`).toBe(true)
    }
  })

  it('looks as far ahead as the longest configured secret: a 300-character secret in a long word is caught whole', () => {
    const secret = 'Q'.repeat(150) + 'x9'.repeat(75)
    const word = `${'a'.repeat(400)}${secret}${'b'.repeat(400)}`
    const redaction = new StreamRedaction(createRedactor({ env: {}, secrets: [secret] }))
    let out = ''
    let maxHeld = 0
    for (const char of word) {
      out += redaction.push(char)
      maxHeld = Math.max(maxHeld, redaction.heldLength())
      expect(out).not.toContain('QQQQ')
    }
    out += redaction.flush()
    expect(out).toBe(`${'a'.repeat(400)}[REDACTED]${'b'.repeat(400)}`)
    expect(maxHeld).toBeLessThanOrEqual(2 * secret.length)
  })

  it('hides the rest of a word when a key is still going at the end of what is held', () => {
    const key = `sk-${'K'.repeat(400)}`
    const redaction = new StreamRedaction(createRedactor({ env: {} }))
    let out = ''
    for (const char of `see ${key}+tail and more`) out += redaction.push(char)
    out += redaction.flush()
    expect(out).toBe('see [REDACTED] and more')
  })

  it("never lets out a URL's password longer than the hold-back, streamed unbroken one character at a time", () => {
    // The password pattern needs the `@` in view; a cut comes after 256 held characters, before the `@` of these.
    for (const length of [150, 191, 193, 200, 255, 257, 300, 511, 700]) {
      const secret = Array.from({ length }, (_, i) => 'Ab3_x-Z9~q'[i % 10]).join('')
      const redaction = new StreamRedaction(createRedactor({ env: {} }))
      let out = ''
      let maxHeld = 0
      for (const char of `use postgres://app:${secret}@db.internal:5432/main now`) {
        out += redaction.push(char)
        maxHeld = Math.max(maxHeld, redaction.heldLength())
      }
      out += redaction.flush()
      expect(out, `password of ${length}`).toBe('use postgres://app:[REDACTED]@db.internal:5432/main now')
      expect(maxHeld).toBeLessThanOrEqual(maxHoldBack + 1)
    }
  })

  it('does not hide a long word after a URL that has no password in progress', () => {
    const word = 'w'.repeat(600)
    const out = stream(`see https://example.com:8443/${word} end`, 1, new StreamRedaction(createRedactor({ env: {} }))).join('')
    expect(out).toBe(`see https://example.com:8443/${word} end`)
  })

  it('works with a redactor that has only redact() (a custom one): whole words are redacted', () => {
    const base = createRedactor({ env: {} })
    const sent = stream(`a ${key} b`, 3, new StreamRedaction({ ...base, redactAppended: undefined, secretChars: undefined }))
    expect(sent.join('')).toBe('a [REDACTED] b')
  })
})
