// httpFetch(): the model-facing `http_fetch` tool on top of guardedFetch.
import { ConfigurationError, defineTool, type Tool } from '@spindle/core'
import { z } from 'zod'
import { guardedFetch, resolveFetchLimits, type GuardedFetchOptions } from './guarded-fetch.js'
import { normalizeSchemes } from './url-guard.js'
import { WebToolError } from './web-tool-error.js'

/** Options of `httpFetch()`: the SSRF guard and limits of `GuardedFetchOptions`, the methods the model may use, approval and the tool's name. */
export interface HttpFetchOptions extends GuardedFetchOptions {
  /** Methods the model may use (default `['GET', 'HEAD']`; anything else makes the tool `external` and non-idempotent). */
  allowedMethods?: readonly string[]
  /** Ask a human before each call (default: only when a non-GET/HEAD method is allowed). */
  needsApproval?: boolean
  /** The name the model sees (default `http_fetch`). */
  name?: string
}

/** What the `http_fetch` tool returns: the final URL, status, headers, the body (UTF-8 text, or base64 for binary content) and the redirects followed. */
export interface HttpFetchResult {
  url: string
  status: number
  statusText: string
  headers: Record<string, string>
  contentType: string | undefined
  /** utf8 text for textual content types, base64 otherwise. */
  encoding: 'utf8' | 'base64'
  body: string
  bytes: number
  redirects: string[]
}

/** The arguments the model passes to `http_fetch`. */
export interface HttpFetchInput {
  url: string
  method?: string
  headers?: Record<string, string>
  body?: string
}

const safeMethods = ['GET', 'HEAD']

/**
 * An `http_fetch` tool guarded against SSRF: private and internal addresses are refused unless allowed,
 * every redirect is re-checked, the connection is pinned to the checked address, size and time are capped.
 *
 * @example
 * const fetchTool = httpFetch({ allowHosts: ['api.example.com'], maxBytes: 500_000 })
 */
export function httpFetch(options: HttpFetchOptions = {}): Tool<HttpFetchInput, HttpFetchResult> {
  const methods = (options.allowedMethods ?? safeMethods).map((method) => method.toUpperCase())
  if (methods.length === 0) throw new ConfigurationError('[spindle/tools-web] allowedMethods must name at least one method')
  const limits = resolveFetchLimits(options)
  normalizeSchemes(options.allowedSchemes)
  const readOnly = methods.every((method) => safeMethods.includes(method))
  const input = z.object({
    url: z.string().describe('Absolute http(s) URL'),
    method: z
      .enum(methods as [string, ...string[]])
      .optional()
      .describe(`HTTP method (default GET; allowed: ${methods.join(', ')})`),
    headers: z.record(z.string(), z.string()).optional().describe('Extra request headers'),
    body: z.string().optional().describe('Request body, for methods that take one'),
  })
  return defineTool({
    name: options.name ?? 'http_fetch',
    description: `Fetch a URL over HTTP(S) and return status, headers and body (at most ${limits.maxBytes} bytes; internal network addresses are refused).`,
    inputSchema: input,
    idempotent: readOnly,
    effect: readOnly ? 'read' : 'external',
    needsApproval: options.needsApproval ?? !readOnly,
    timeoutMs: limits.timeoutMs + 1000,
    async execute(request, context) {
      const method = (request.method ?? 'GET').toUpperCase()
      if (!methods.includes(method)) throw new WebToolError('web_method_not_allowed', `the method ${method} is not allowed (allowed: ${methods.join(', ')})`)
      const response = await guardedFetch({ url: request.url, method, headers: request.headers, body: request.body, signal: context?.signal }, options)
      const contentType = response.headers['content-type']
      const textual = isTextual(contentType, response.body)
      return {
        url: response.url,
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        contentType,
        encoding: textual ? 'utf8' : 'base64',
        body: textual ? decodeText(response.body, contentType) : response.body.toString('base64'),
        bytes: response.body.length,
        redirects: response.redirects,
      }
    },
  })
}

export function isTextual(contentType: string | undefined, body: Buffer): boolean {
  if (!contentType) return !body.includes(0)
  const type = contentType.split(';')[0].trim().toLowerCase()
  return type.startsWith('text/') || /[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded|yaml|csv)$/.test(type) || type === 'application/x-ndjson'
}

export function decodeText(body: Buffer, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body)
  } catch {
    return new TextDecoder('utf-8').decode(body)
  }
}
