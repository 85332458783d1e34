// Streamed text redaction: a secret that arrives a few characters per delta never goes out, and the text around it
// is held back no longer than the end of its word.
import { describe, expect, it } from 'vitest'
import { createRedactor } from './redactor.js'
import { StreamRedaction } from './stream-redaction.js'

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
      expect(joined, `size ${size}`).toBe(
        'here [REDACTED], "json":"[REDACTED]" then Bearer [REDACTED] and [REDACTED] ok\nAuthorization: [REDACTED], done 完了',
      )
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
    expect(redaction.holding).toBe(true)
    expect(redaction.push(' wor')).toBe('Hello ')
    expect(redaction.push('ld! ')).toBe('world! ')
    expect(redaction.holding).toBe(false)
    expect(redaction.push('{"a":1,"b"')).toBe('{"a":1,"b"')
    expect(redaction.push('日本語のテキスト')).toBe('日本語のテキスト')
    expect(redaction.push('tail')).toBe('')
    expect(redaction.flush()).toBe('tail')
    expect(redaction.flush()).toBe('')
  })

  it('lets a run of key characters go past 4,096 characters instead of holding it to the end', () => {
    const sent = stream('x'.repeat(5_000), 100, new StreamRedaction(createRedactor({ env: {} })))
    expect(sent.slice(0, 40).every((piece) => piece === '')).toBe(true)
    expect(sent[40]).toHaveLength(4_100)
    expect(sent.join('')).toBe('x'.repeat(5_000))
  })

  it('works with a redactor that has only redact() (a custom one): whole words are redacted', () => {
    const base = createRedactor({ env: {} })
    const sent = stream(`a ${key} b`, 3, new StreamRedaction({ ...base, redactAppended: undefined, secretChars: undefined }))
    expect(sent.join('')).toBe('a [REDACTED] b')
  })
})
