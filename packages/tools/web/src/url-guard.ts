// Vets a URL before any byte is sent: scheme and host allow-lists (host and port), then DNS resolved here
// (every address checked) so the request can be pinned to an address that passed.
import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { untilAborted } from '@spindle/core/plugin-kit'
import { defaultPort, effectivePort, entryAllowsPort, entryMatchesHost, parseAllowHosts, type AllowHostEntry } from './allow-host-entry.js'
import { addressInCidr, blockedAddressReason } from './ip-address.js'
import { WebToolError } from './web-tool-error.js'

/** One address a host name resolved to, as `dns.promises.lookup` returns it. */
export interface ResolvedAddress {
  address: string
  family: number
}

/** Resolves a host name to all its addresses (default: `dns.promises.lookup(host, { all: true })`). */
export type LookupFunction = (hostname: string) => Promise<ResolvedAddress[]>

/** What the SSRF guard allows: hosts and ports (`allowHosts`), private addresses, schemes, and the DNS lookup to use. */
export interface UrlGuardOptions {
  /**
   * When set, only these hosts and ports may be fetched. An entry is a name (`example.com`), a wildcard
   * (`*.example.com`, subdomains only), an IP literal (`127.0.0.1`, `::1`) or a CIDR (`10.0.0.0/8`, `fd00::/8`),
   * with port rules as in a CSP host-source:
   * - no port: only the default port of the URL's scheme (80 for http, 443 for https);
   * - `:8443`: that port only; `:*`: any port;
   * - IPv6 addresses and CIDRs take a port in brackets (`[2001:db8::1]:8443`, `[fd00::/8]:*`); IPv4 CIDRs take
   *   it after the prefix (`10.0.0.0/8:8080`).
   *
   * An IP or CIDR entry also lets that internal address through the SSRF block, on its ports only. An invalid
   * entry (`host:0`, `host:abc`, `https://host`) is a `ConfigurationError` at tool creation.
   *
   * @example
   * httpFetch({ allowHosts: ['api.example.com', 'api.example.com:8443', '127.0.0.1:*'] })
   */
  allowHosts?: readonly string[]
  /** Let private, loopback, link-local and other internal addresses through (default false). */
  allowPrivateAddresses?: boolean
  /** Default `['http:', 'https:']`. */
  allowedSchemes?: readonly string[]
  lookup?: LookupFunction
}

/** A URL the guard accepted, with the checked address the connection is pinned to. */
export interface VettedTarget {
  url: URL
  /** Host name without IPv6 brackets, as sent in Host / SNI. */
  hostname: string
  /** The checked address the connection is pinned to. */
  address: string
  family: 4 | 6
}

const defaultLookup: LookupFunction = (hostname) => dnsLookup(hostname, { all: true, verbatim: true })

export function normalizeSchemes(schemes: readonly string[] | undefined): string[] {
  return (schemes ?? ['http:', 'https:']).map((scheme) => (scheme.endsWith(':') ? scheme : `${scheme}:`).toLowerCase())
}

export function parseUrl(input: string | URL): URL {
  try {
    return new URL(String(input))
  } catch (error) {
    throw new WebToolError('web_invalid_url', `"${String(input).slice(0, 200)}" is not a valid absolute URL; pass e.g. "https://example.com/page"`, {
      cause: error,
    })
  }
}

/**
 * Checks scheme, credentials and host allow-list, resolves DNS and checks every address. When `signal`
 * aborts while DNS resolves, it rejects at once with `signal.reason` (as `fetch` does), even if the lookup
 * never answers.
 *
 * @example
 * const target = await vetUrl('https://example.com/page', { allowHosts: ['example.com'] }, AbortSignal.timeout(5000))
 */
export async function vetUrl(input: string | URL, options: UrlGuardOptions, signal?: AbortSignal): Promise<VettedTarget> {
  const url = parseUrl(input)
  const schemes = normalizeSchemes(options.allowedSchemes)
  if (!schemes.includes(url.protocol)) {
    throw new WebToolError('web_scheme_not_allowed', `the scheme "${url.protocol}" is not allowed (allowed: ${schemes.join(', ')})`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebToolError('web_scheme_not_allowed', `only http: and https: can be fetched, not "${url.protocol}"`)
  }
  if (url.username || url.password) throw new WebToolError('web_invalid_url', 'URLs with embedded credentials (user:password@) are refused')
  const hostname = urlHostname(url)
  if (!hostname) throw new WebToolError('web_invalid_url', `"${url.href}" has no host`)
  // WHATWG parsing already turns 2130706433, 0177.0.0.1 and 0x7f.1 into 127.0.0.1; anything numeric-looking left is refused.
  if (!isIP(hostname) && /^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*$/i.test(hostname)) {
    throw new WebToolError('web_invalid_url', `"${hostname}" is not a valid host name or IP address`)
  }
  const entries = parseAllowHosts(options.allowHosts)
  if (entries) checkAllowHosts(url, hostname, entries)
  const addresses = isIP(hostname) ? [{ address: hostname, family: isIP(hostname) }] : await resolve(hostname, options.lookup ?? defaultLookup, signal)
  for (const { address } of addresses) {
    const reason = blockedAddressReason(address)
    if (reason === undefined || options.allowPrivateAddresses) continue
    // An IP or CIDR entry lets its internal addresses through, on the ports it allows.
    if (entries?.some((entry) => (entry.kind === 'address' || entry.kind === 'cidr') && addressInCidr(address, entry.host) && entryAllowsPort(entry, url)))
      continue
    const via = address === hostname ? '' : ` (${hostname} resolves to it)`
    throw new WebToolError(
      'web_address_blocked',
      `refused to connect to ${address}${via}: ${reason} addresses are blocked to prevent server-side request forgery; an operator can allow it with allowPrivateAddresses or by listing the address in allowHosts`,
      { details: { hostname, address, reason } },
    )
  }
  const chosen = addresses[0]
  return { url, hostname, address: chosen.address, family: chosen.family === 6 ? 6 : 4 }
}

async function resolve(hostname: string, lookup: LookupFunction, signal: AbortSignal | undefined): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[]
  try {
    addresses = await untilAborted(lookup(hostname), signal)
  } catch (error) {
    if (signal?.aborted) throw signal.reason
    throw new WebToolError('web_dns_failed', `could not resolve "${hostname}": ${(error as Error)?.message ?? String(error)}`, { cause: error })
  }
  const valid = (addresses ?? []).filter((entry) => entry && typeof entry.address === 'string' && isIP(entry.address) !== 0)
  if (valid.length === 0 || valid.length !== (addresses ?? []).length) {
    throw new WebToolError('web_dns_failed', `"${hostname}" did not resolve to any usable IP address`)
  }
  return valid.map((entry) => ({ address: entry.address, family: isIP(entry.address) }))
}

/** The URL's host as matched and sent: lower case, without IPv6 brackets or a trailing dot. */
function urlHostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname.replace(/\.$/, '')
}

function checkAllowHosts(url: URL, hostname: string, entries: AllowHostEntry[]): void {
  const forHost = entries.filter((entry) => entryMatchesHost(entry, hostname))
  if (forHost.length === 0) {
    throw new WebToolError('web_host_not_allowed', `the host "${hostname}" is not in the allow-list (${entries.map((entry) => entry.source).join(', ')})`, {
      details: { hostname },
    })
  }
  if (forHost.some((entry) => entryAllowsPort(entry, url))) return
  const port = effectivePort(url)
  const fallback = defaultPort(url.protocol)
  const ports = [...new Set(forHost.map((entry) => entry.port ?? fallback))]
  const host = isIP(hostname) === 6 ? `[${hostname}]` : hostname
  const suggestion = port === fallback ? host : `${host}:${port}`
  throw new WebToolError(
    'web_host_not_allowed',
    `the port ${port} of "${hostname}" is not allowed: allowHosts lets this host through only on ${ports.length === 1 ? 'port' : 'ports'} ${ports.join(', ')} (an entry without a port means the default port of the scheme, ${fallback} for ${url.protocol}); an operator can allow it by listing "${suggestion}" in allowHosts`,
    { details: { hostname, port } },
  )
}

/**
 * True when `allowHosts` lets the URL's host and port through (see `UrlGuardOptions.allowHosts`). Throws a
 * `ConfigurationError` for an invalid entry.
 *
 * @example
 * hostAllowed('https://api.example.com:8443/v1', ['api.example.com']) // false: only port 443
 */
export function hostAllowed(url: string | URL, allowHosts: readonly string[]): boolean {
  const entries = parseAllowHosts(allowHosts) ?? []
  const parsed = parseUrl(url)
  const hostname = urlHostname(parsed).toLowerCase()
  return entries.some((entry) => entryMatchesHost(entry, hostname) && entryAllowsPort(entry, parsed))
}
