// Keeps a transport's credentials out of error messages and causes: the values of credential headers and
// stdio env variables (named like key / token / secret…), and the URL's query string, which a server may echo.
import { credentialHeaderValues } from '@spindle/core/plugin-kit'
import type { McpTransportOptions } from './mcp-connection.js'

const replacement = '[REDACTED]'
/** Shorter values are left alone, so that a short value cannot mangle every message. */
const minimumSecretLength = 4

export interface McpScrubber {
  /** `text` with the full URL replaced by its safe form and every secret replaced. */
  text(text: string): string
  /** The error itself when it holds no secret (cause chain included), else a scrubbed copy of the chain. */
  error(error: unknown): unknown
}

/** The server as error messages name it: an HTTP URL without its query (tokens often ride there) or credentials. */
export function withoutSecrets(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return '(invalid URL)'
  }
}

export function createMcpScrubber(transport: McpTransportOptions): McpScrubber {
  const urls: Array<[string, string]> = []
  const secrets = new Set<string>()
  if (transport.type === 'http') {
    const safe = withoutSecrets(transport.url)
    urls.push([transport.url, safe])
    try {
      const parsed = new URL(transport.url)
      urls.push([parsed.href, safe])
      // The query as a whole, then each value: a server echoing its request line or one parameter is caught.
      if (parsed.search.length > 1) secrets.add(parsed.search.slice(1))
      for (const value of parsed.searchParams.values()) secrets.add(value)
    } catch {
      // Checked by mcpTools already.
    }
    for (const value of credentialHeaderValues(transport.headers)) secrets.add(value)
  } else {
    for (const value of credentialHeaderValues(transport.env)) secrets.add(value)
  }
  const sorted = [...secrets].filter((secret) => secret.length >= minimumSecretLength).sort((a, b) => b.length - a.length)

  const text = (input: string): string => {
    let result = input
    for (const [url, safe] of urls) if (url) result = result.split(url).join(safe)
    for (const secret of sorted) result = result.split(secret).join(replacement)
    return result
  }

  const holdsSecret = (error: unknown, depth: number): boolean => {
    if (depth > 8 || error === undefined || error === null) return false
    if (typeof error === 'string') return text(error) !== error
    if (!(error instanceof Error)) return false
    return text(error.message) !== error.message || text(error.stack ?? '') !== (error.stack ?? '') || holdsSecret(error.cause, depth + 1)
  }

  const copy = (error: unknown, depth: number): unknown => {
    if (typeof error === 'string') return text(error)
    if (!(error instanceof Error) || depth > 8) return undefined
    const scrubbed = new Error(text(error.message), error.cause === undefined ? undefined : { cause: copy(error.cause, depth + 1) })
    scrubbed.name = error.name
    scrubbed.stack = text(error.stack ?? '')
    const code = (error as { code?: unknown }).code
    if (typeof code === 'number' || typeof code === 'string') Object.assign(scrubbed, { code })
    return scrubbed
  }

  return {
    text,
    error: (error) => (holdsSecret(error, 0) ? copy(error, 0) : error),
  }
}
