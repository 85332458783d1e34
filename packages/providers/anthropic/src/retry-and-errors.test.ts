// Unit rules of the retry policy and of error mapping that the wire tests do not pin down exactly.
import Anthropic from '@anthropic-ai/sdk'
import { AbortedError, ProviderError, StreamInterruptedError } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { mapAnthropicError, parseRetryAfter, redactSecret } from './map-error.js'
import { isRetryableError, retryDelayMs } from './retry-policy.js'

describe('retry policy', () => {
  it('retries 408/409/429/5xx/529, network and interrupted errors; never 4xx or aborts', () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504, 529]) expect(isRetryableError(new ProviderError('x', { status })), String(status)).toBe(true)
    for (const status of [400, 401, 403, 404, 413, 422]) expect(isRetryableError(new ProviderError('x', { status })), String(status)).toBe(false)
    expect(isRetryableError(new ProviderError('network', { isRetryable: true }))).toBe(true)
    expect(isRetryableError(new StreamInterruptedError('cut'))).toBe(true)
    expect(isRetryableError(new AbortedError())).toBe(false)
    expect(isRetryableError(new Error('plain'))).toBe(false)
  })

  it('backs off exponentially with jitter inside [cap/2, cap], bounded by maxRetries and maxDelayMs', () => {
    const error = new ProviderError('x', { status: 500 })
    const options = { initialDelayMs: 100, maxDelayMs: 300, maxRetries: 3 }
    expect(retryDelayMs(1, error, options, () => 0)).toBe(50)
    expect(retryDelayMs(1, error, options, () => 1)).toBe(100)
    expect(retryDelayMs(2, error, options, () => 1)).toBe(200)
    expect(retryDelayMs(3, error, options, () => 1)).toBe(300)
    expect(retryDelayMs(4, error, options, () => 1)).toBeUndefined()
  })

  it('waits exactly the retry-after when it is within maxRetryAfterMs', () => {
    expect(retryDelayMs(1, new ProviderError('x', { status: 429, retryAfterMs: 2500 }))).toBe(2500)
    expect(retryDelayMs(1, new ProviderError('x', { status: 429, retryAfterMs: 90_000 }))).toBeUndefined()
  })
})

describe('error mapping', () => {
  it('parses retry-after-ms, retry-after seconds and HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }), now)).toBe(1500)
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }), now)).toBe(3000)
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000)
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined()
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined()
  })

  it('redacts the configured key and anything shaped like an Anthropic key', () => {
    expect(redactSecret('bad key my-custom-secret-key here', 'my-custom-secret-key')).toBe('bad key [REDACTED] here')
    expect(redactSecret('key sk-ant-api03-abcdefghijklmnop leaked', undefined)).toBe('key [REDACTED] leaked')
  })

  it('maps in-band errors without a status by their type, and passes SpindleErrors through', () => {
    const inBand = new Anthropic.APIError(undefined, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, undefined, undefined)
    expect(mapAnthropicError(inBand, { provider: 'anthropic', apiKey: 'k' })).toMatchObject({ status: 529, isRetryable: true, details: { inBand: true } })
    const unknownType = new Anthropic.APIError(undefined, { type: 'error', error: { type: 'brand_new_error', message: 'x' } }, undefined, undefined)
    expect(mapAnthropicError(unknownType, { provider: 'anthropic', apiKey: 'k' })).toMatchObject({ status: 500 })
    const original = new AbortedError()
    expect(mapAnthropicError(original, { provider: 'anthropic', apiKey: 'k' })).toBe(original)
    expect(mapAnthropicError(new Anthropic.APIUserAbortError(), { provider: 'anthropic', apiKey: 'k' })).toBeInstanceOf(AbortedError)
  })

  it('keeps a redacted copy of the SDK error as the cause', () => {
    const error = new Anthropic.APIError(
      401,
      { type: 'error', error: { type: 'authentication_error', message: 'bad key sk-ant-zzzzzzzzzzzz' } },
      undefined,
      new Headers({ 'request-id': 'req_1' }),
    )
    const mapped = mapAnthropicError(error, { provider: 'anthropic', apiKey: undefined })
    expect(mapped.cause).toBeInstanceOf(Error)
    expect((mapped.cause as Error).message).not.toContain('sk-ant-zzzzzzzzzzzz')
    expect(mapped.message).toContain('request-id req_1')
  })
})
