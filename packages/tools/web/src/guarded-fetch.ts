// guardedFetch: an HTTP client for untrusted URLs. Every hop (redirects are followed by hand)
// is vetted and pinned to its checked address; the body is streamed, decompressed and cut at maxBytes.
import type { IncomingMessage } from 'node:http'
import type { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { ConfigurationError } from '@spindle/core'
import { parseAllowHosts } from './allow-host-entry.js'
import { crossOriginHeaders, resolveOperatorHeaders, type OperatorHeaderPolicy } from './operator-headers.js'
import { sendPinned } from './pinned-request.js'
import { vetUrl, type UrlGuardOptions, type VettedTarget } from './url-guard.js'
import { WebToolError } from './web-tool-error.js'

/** Options of `guardedFetch()` and the web tools: the URL guard plus body size, deadline, redirects, secret and public headers, and a CA. */
export interface GuardedFetchOptions extends UrlGuardOptions {
  /** Largest body accepted, after decompression (default 2 MiB). */
  maxBytes?: number
  /** Whole-request deadline, DNS resolution and redirects included (default 15 s). */
  timeoutMs?: number
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number
  /**
   * Headers sent with every request. Each is treated as a secret unless `publicHeaders` names it: it needs
   * `allowHosts`, and it is not sent on after a redirect to another origin.
   */
  headers?: Record<string, string>
  /**
   * Names of `headers` whose values are no secret (e.g. `['User-Agent', 'Accept-Language']`): they need no
   * `allowHosts` and follow redirects to other origins. A credential-named header cannot be listed here.
   */
  publicHeaders?: readonly string[]
  /** Extra trusted CA certificates (PEM) for https, e.g. an internal CA. Certificates are always verified. */
  ca?: string | Buffer | Array<string | Buffer>
}

/** A request for `guardedFetch()`. */
export interface GuardedRequest {
  url: string
  method?: string
  headers?: Record<string, string>
  body?: string
  signal?: AbortSignal
}

/** A response of `guardedFetch()`: the final URL after redirects, status, headers and the body, bounded by `maxBytes`. */
export interface GuardedResponse {
  /** The final URL, after redirects. */
  url: string
  status: number
  statusText: string
  headers: Record<string, string>
  body: Buffer
  redirects: string[]
  /** The address the final response came from. */
  address: string
}

const redirectStatuses = new Set([301, 302, 303, 307, 308])
/** Headers a caller may not set: they would let it smuggle requests or lie about the target. */
const forbiddenHeaders = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'expect',
  'accept-encoding',
])
export interface ResolvedFetchLimits {
  maxBytes: number
  timeoutMs: number
  maxRedirects: number
  /** Which operator headers are secret (dropped on a redirect to another origin). */
  headers: OperatorHeaderPolicy
}

export function resolveFetchLimits(options: GuardedFetchOptions): ResolvedFetchLimits {
  // The operator's secret headers go only where the operator said: without an allow-list the model picks the host (a
  // prompt injection could have them sent to its own server).
  const headers = resolveOperatorHeaders(options.headers, options.publicHeaders, options.allowHosts)
  // Parsed here too so a bad entry fails at tool creation, not on the model's first call.
  parseAllowHosts(options.allowHosts)
  return {
    maxBytes: positive('maxBytes', options.maxBytes, 2 * 1024 * 1024),
    timeoutMs: positive('timeoutMs', options.timeoutMs, 15_000),
    maxRedirects: nonNegative('maxRedirects', options.maxRedirects, 5),
    headers,
  }
}

/**
 * Fetches an untrusted URL under the SSRF guard.
 *
 * @example
 * const page = await guardedFetch({ url: 'https://example.com' }, { allowHosts: ['example.com'] })
 */
export async function guardedFetch(request: GuardedRequest, options: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const limits = resolveFetchLimits(options)
  const timeout = AbortSignal.timeout(limits.timeoutMs)
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout
  const fail = (error: unknown): never => {
    if (WebToolError.isInstance(error)) throw error
    if (timeout.aborted)
      throw new WebToolError('web_timeout', `the request to ${request.url} took longer than ${limits.timeoutMs} ms and was stopped`, {
        cause: error,
        isRetryable: true,
      })
    if (request.signal?.aborted) throw new WebToolError('web_aborted', 'the request was aborted', { cause: error })
    throw new WebToolError('web_request_failed', `the request to ${request.url} failed: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
      isRetryable: true,
    })
  }
  let method = (request.method ?? 'GET').toUpperCase()
  let body = request.body === undefined || method === 'GET' || method === 'HEAD' ? undefined : Buffer.from(request.body, 'utf8')
  let headers = buildHeaders(options.headers, request.headers)
  const redirects: string[] = []
  let current = request.url
  try {
    for (;;) {
      if (signal.aborted) fail(signal.reason)
      const target = await vetUrl(current, options, signal)
      const outgoing = { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) }
      const response = await sendPinned({ target, method, headers: outgoing, body, signal, ca: options.ca })
      const location = response.headers.location
      if (redirectStatuses.has(response.statusCode ?? 0) && location) {
        response.destroy()
        if (redirects.length >= limits.maxRedirects) {
          throw new WebToolError('web_too_many_redirects', `stopped after ${limits.maxRedirects} redirects (last: ${target.url.href})`)
        }
        const next = new URL(location, target.url)
        if (next.origin !== target.url.origin) headers = crossOriginHeaders(headers, limits.headers)
        if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')) {
          method = method === 'HEAD' ? 'HEAD' : 'GET'
          body = undefined
        }
        redirects.push(next.href)
        current = next.href
        continue
      }
      return await readResponse(response, target, method, redirects, limits.maxBytes)
    }
  } catch (error) {
    return fail(error)
  }
}

function buildHeaders(base: Record<string, string> | undefined, extra: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': 'spindle-tools-web', accept: '*/*', 'accept-encoding': 'gzip, deflate, br' }
  for (const source of [base, extra]) {
    for (const [name, value] of Object.entries(source ?? {})) {
      const key = name.toLowerCase()
      if (forbiddenHeaders.has(key)) throw new WebToolError('web_invalid_url', `the header "${name}" cannot be set`)
      if (/[\r\n\0]/.test(value) || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(key)) {
        throw new WebToolError('web_invalid_url', `the header "${name.slice(0, 100)}" has an invalid name or value`)
      }
      headers[key] = value
    }
  }
  return headers
}

async function readResponse(response: IncomingMessage, target: VettedTarget, method: string, redirects: string[], maxBytes: number): Promise<GuardedResponse> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  const result = (body: Buffer): GuardedResponse => ({
    url: target.url.href,
    status: response.statusCode ?? 0,
    statusText: response.statusMessage ?? '',
    headers,
    body,
    redirects,
    address: target.address,
  })
  if (method === 'HEAD' || response.statusCode === 204 || response.statusCode === 304) {
    response.destroy()
    return result(Buffer.alloc(0))
  }
  const declared = Number(headers['content-length'])
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase()
  if (Number.isFinite(declared) && declared > maxBytes && (encoding === '' || encoding === 'identity')) {
    response.destroy()
    throw tooLarge(target, maxBytes, `it declares ${declared} bytes`)
  }
  const stream = decode(response, encoding)
  const chunks: Buffer[] = []
  let total = 0
  try {
    for await (const chunk of stream) {
      total += (chunk as Buffer).length
      if (total > maxBytes) throw tooLarge(target, maxBytes, 'the body went past it')
      chunks.push(chunk as Buffer)
    }
  } finally {
    response.destroy()
    if (stream !== response) stream.destroy()
  }
  return result(Buffer.concat(chunks))
}

function decode(response: IncomingMessage, encoding: string): Readable {
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined
  if (!decoder) return response
  response.on('error', (error) => decoder.destroy(error))
  return response.pipe(decoder)
}

function tooLarge(target: VettedTarget, maxBytes: number, why: string): WebToolError {
  return new WebToolError('web_too_large', `the response from ${target.url.href} is larger than the ${maxBytes}-byte limit (${why}); the download was stopped`)
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0) throw new ConfigurationError(`[spindle/tools-web] ${name} must be a positive number (got ${value})`)
  return value
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 0) throw new ConfigurationError(`[spindle/tools-web] ${name} must be a non-negative integer (got ${value})`)
  return value
}
