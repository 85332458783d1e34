// createRedactor: literal secrets, secret environment variables, and the built-in patterns.
import { describe, expect, it } from 'vitest'
import { createRedactor, defaultSecretPatterns } from '../index.js'
import { StreamRedaction } from './stream-redaction.js'

describe('createRedactor', () => {
  it("hides the password of a URL's userinfo, and leaves URLs without one, and the user name, as they are", () => {
    const redactor = createRedactor({ env: {} })
    expect(redactor.redact('DATABASE_URL=postgres://app:hunter2-long@db:5432/x')).toBe('DATABASE_URL=postgres://app:[REDACTED]@db:5432/x')
    expect(redactor.redact('"https://deploy:ghp_abc123@github.com/o/r.git"')).toBe('"https://deploy:[REDACTED]@github.com/o/r.git"')
    for (const plain of [
      'https://example.com/path?q=a:b@c',
      'mailto:someone@example.com',
      'user@example.com:22',
      'http://host:8080/x@y',
      'ssh://git@github.com/o/r',
    ]) {
      expect(redactor.redact(plain), plain).toBe(plain)
    }
    expect(redactor.redactValue({ url: 'redis://:pw-0123456@cache:6379' })).toEqual({ url: 'redis://:[REDACTED]@cache:6379' })
    expect(createRedactor({ env: {}, defaultPatterns: false }).redact('postgres://app:hunter2-long@db/x')).toBe('postgres://app:hunter2-long@db/x')
  })

  it('hides OpenAI and Anthropic keys, bearer tokens and Authorization header values', () => {
    const redactor = createRedactor({ env: {} })
    expect(redactor.redact('key sk-proj-abcdefghijklmnop1234 end')).toBe('key [REDACTED] end')
    expect(redactor.redact('key=sk-ant-api03-abcDEF_123-xyz')).toBe('key=[REDACTED]')
    expect(redactor.redact('curl -H "Authorization: Bearer eyJhbGciOi.J9x"')).toBe('curl -H "Authorization: [REDACTED]"')
    expect(redactor.redact('{"authorization":"Basic dXNlcjpwYXNz"}')).toBe('{"authorization":"[REDACTED]"}')
    expect(redactor.redact('x-api-key: sk-abcdefghijklmnopqrstu')).toBe('x-api-key: [REDACTED]')
    // Short or unrelated text is left alone.
    expect(redactor.redact('ask-me sk-short Bearer of news')).toBe('ask-me sk-short Bearer of news')
  })

  it('hides the values of OPENAI_API_KEY, ANTHROPIC_API_KEY and any *_KEY / *_TOKEN / *_SECRET variable', () => {
    const redactor = createRedactor({
      env: { OPENAI_API_KEY: 'plain-openai-value', PAYMENTS_TOKEN: 'hunter2-hunter2', DB_SECRET: 'correct-horse', SHORT_KEY: 'abc', HOME: '/home/someone' },
    })
    expect(redactor.redact('a plain-openai-value b hunter2-hunter2 c correct-horse')).toBe('a [REDACTED] b [REDACTED] c [REDACTED]')
    // Values under 8 characters and variables not named as secrets are not treated as secrets.
    expect(redactor.redact('abc /home/someone')).toBe('abc /home/someone')
  })

  it('envVars names the variables explicitly (then only those and the two provider keys count)', () => {
    const redactor = createRedactor({ env: { MY_PASSWORD: 'swordfish-42', OTHER_TOKEN: 'not-listed-token' }, envVars: ['MY_PASSWORD'] })
    expect(redactor.redact('swordfish-42 not-listed-token')).toBe('[REDACTED] not-listed-token')
  })

  it('literal secrets and extra patterns; the longest literal wins; the replacement is configurable', () => {
    const redactor = createRedactor({ env: {}, secrets: ['abc123secret', 'abc123secret-long'], patterns: [/ghp_[A-Za-z0-9]{6,}/], replacement: '***' })
    expect(redactor.redact('abc123secret-long and abc123secret and ghp_abcdef123')).toBe('*** and *** and ***')
  })

  it('a configured literal secret shorter than 8 characters is hidden too, also when it is a whole value', () => {
    const redactor = createRedactor({ env: {}, secrets: ['hunt3r', '4921'] })
    expect(redactor.redact('hunt3r')).toBe('[REDACTED]')
    expect(redactor.redact('pin 4921')).toBe('pin [REDACTED]')
    expect(redactor.redactValue({ user: 'ann', password: 'hunt3r', pin: '4921' })).toEqual({ user: 'ann', password: '[REDACTED]', pin: '[REDACTED]' })
    const event = redactor.redactEvent({
      type: 'tool.result',
      runId: 'r',
      sessionId: 's',
      seq: 1,
      timestamp: 0,
      step: 0,
      callId: 'c',
      toolName: 'login',
      result: { password: 'hunt3r' },
      durationMs: 1,
    } as never)
    expect(JSON.stringify(event)).not.toContain('hunt3r')
    // Streamed text: a short secret as a delta of its own, or cut in two.
    const streamed = new StreamRedaction(redactor)
    const sent = [streamed.push('my pin: '), streamed.push('49'), streamed.push('21'), streamed.push(' ok'), streamed.flush()].join('')
    expect(sent).toBe('my pin: [REDACTED] ok')
    // A custom pattern may match fewer than 8 characters.
    expect(createRedactor({ env: {}, patterns: [/pin=\d+/g] }).redact('pin=1')).toBe('[REDACTED]')
  })

  it('redactValue copies only what changed and keeps the same reference otherwise', () => {
    const redactor = createRedactor({ env: {}, secrets: ['topsecret1'] })
    const clean = { a: [1, 'x', { b: 'y' }], c: null }
    expect(redactor.redactValue(clean)).toBe(clean)
    const dirty = { a: [1, 'x', { b: 'y topsecret1' }], c: null, keep: { z: 1 } }
    const result = redactor.redactValue(dirty)
    expect(result).toEqual({ a: [1, 'x', { b: 'y [REDACTED]' }], c: null, keep: { z: 1 } })
    expect(result.keep).toBe(dirty.keep)
    expect(dirty.a[2]).toEqual({ b: 'y topsecret1' })
    expect(redactor.redactError({ code: 'x', message: 'topsecret1!' })).toEqual({ code: 'x', message: '[REDACTED]!' })
  })

  it('a pattern with capture groups replaces its whole match, groups included', () => {
    const redactor = createRedactor({
      env: {},
      defaultPatterns: false,
      patterns: [/api_key=([a-z0-9]+)/g, /password:\s*(\S+)/g, /(?<user>[a-z]+):(?<pass>[a-z0-9]{8,})@db/g],
    })
    expect(redactor.redact('config api_key=abcdef123456 end')).toBe('config [REDACTED] end')
    expect(redactor.redact('password: hunter2hunter2')).toBe('[REDACTED]')
    expect(redactor.redact('postgres://admin:s3cretpass@db')).toBe('postgres://[REDACTED]')
    // A lookbehind keeps a prefix; `$` in the replacement is taken literally.
    const keeping = createRedactor({ env: {}, patterns: [/(?<=token=)\w{8,}/g], replacement: '$1$&' })
    expect(keeping.redact('url?token=abcdef123456&x=1')).toBe('url?token=$1$&&x=1')
  })

  it('the built-in Authorization pattern keeps the header name, also when its patterns are passed as custom ones', () => {
    const cases = [
      ['Authorization: Basic dXNlcjpwYXNz', 'Authorization: [REDACTED]'],
      ["headers: { authorization = 'Token abcdefgh', accept: 'json' }", "headers: { authorization = '[REDACTED]', accept: 'json' }"],
      ['AUTHORIZATION:token-abcdefgh\nnext line', 'AUTHORIZATION:[REDACTED]\nnext line'],
    ]
    for (const redactor of [createRedactor({ env: {} }), createRedactor({ env: {}, defaultPatterns: false, patterns: [...defaultSecretPatterns] })]) {
      for (const [text, expected] of cases) expect(redactor.redact(text!)).toBe(expected)
    }
  })

  it('a pattern without the g flag still replaces every match', () => {
    const redactor = createRedactor({ env: {}, defaultPatterns: false, patterns: [/pin-\d{4}/] })
    expect(redactor.redact('pin-1234 pin-5678 sk-abcdefghijklmnopqrstu')).toBe('[REDACTED] [REDACTED] sk-abcdefghijklmnopqrstu')
  })

  it('reads the environment when it is created: a secret set in process.env later is redacted by the next redactor', () => {
    const name = 'SPINDLE_TEST_LATE_API_KEY'
    const before = createRedactor()
    process.env[name] = 'late-secret-value-123'
    try {
      const after = createRedactor()
      expect(before.redact('x late-secret-value-123')).toBe('x late-secret-value-123')
      expect(after.redact('x late-secret-value-123')).toBe('x [REDACTED]')
      // Redactors built from the same secrets share compiled expressions; both keep working, one after the other.
      const again = createRedactor()
      expect(again.redact('late-secret-value-123 and sk-abcdefghijklmnopqrstu')).toBe('[REDACTED] and [REDACTED]')
      expect(after.redact('sk-abcdefghijklmnopqrstu late-secret-value-123')).toBe('[REDACTED] [REDACTED]')
    } finally {
      delete process.env[name]
    }
  })
})
