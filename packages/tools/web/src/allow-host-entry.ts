// allowHosts entries: parsed once (a bad entry is a ConfigurationError naming it, never a silent non-match) and
// matched against a URL with CSP host-source port rules: an entry without a port allows the scheme's default port only.
import { isIP } from 'node:net'
import { domainToASCII } from 'node:url'
import { ConfigurationError } from '@spindle/core'
import { addressInCidr, parseIp } from './ip-address.js'

export interface AllowHostEntry {
  /** The entry as the operator wrote it. */
  source: string
  kind: 'name' | 'wildcard' | 'address' | 'cidr'
  /** Lower-case ASCII name, the suffix after `*.`, an IP address (no brackets) or a CIDR (`10.0.0.0/8`). */
  host: string
  /** That port only, `'*'` for any port, `undefined` for the default port of the URL's scheme (80, 443). */
  port: number | '*' | undefined
}

const defaultPorts: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 }

/** The port a URL connects to: its explicit port, or its scheme's default. */
export function effectivePort(url: URL): number | undefined {
  return url.port ? Number(url.port) : defaultPorts[url.protocol]
}

export function defaultPort(protocol: string): number | undefined {
  return defaultPorts[protocol]
}

/**
 * Parses every entry of `allowHosts`; throws a `ConfigurationError` naming the first invalid one.
 *
 * @example
 * parseAllowHosts(['api.example.com', 'api.example.com:8443', '[2001:db8::1]:*', '10.0.0.0/8:8080'])
 */
export function parseAllowHosts(allowHosts: readonly string[] | undefined): AllowHostEntry[] | undefined {
  if (allowHosts === undefined) return undefined
  if (!Array.isArray(allowHosts))
    throw new ConfigurationError('[spindle/tools-web] allowHosts must be an array of host entries, e.g. ["api.example.com", "api.example.com:8443"]')
  return allowHosts.map(parseEntry)
}

/** True when the entry names this host, whatever the port (`host` is lower-case, without brackets or trailing dot). */
export function entryMatchesHost(entry: AllowHostEntry, host: string): boolean {
  const address = isIP(host) !== 0
  switch (entry.kind) {
    case 'address':
      return address && sameAddress(host, entry.host)
    case 'cidr':
      return address && addressInCidr(host, entry.host)
    case 'wildcard':
      return !address && host.endsWith(`.${entry.host}`)
    case 'name':
      return !address && host === entry.host
  }
}

/** True when the entry's port rule lets the URL's port through. */
export function entryAllowsPort(entry: AllowHostEntry, url: URL): boolean {
  if (entry.port === '*') return true
  const port = effectivePort(url)
  return port !== undefined && port === (entry.port ?? defaultPort(url.protocol))
}

function parseEntry(source: unknown): AllowHostEntry {
  if (typeof source !== 'string') throw invalid(String(source), 'it is not a string')
  const text = source.trim().toLowerCase()
  if (!text) throw invalid(source, 'it is empty')
  if (text.includes('://')) throw invalid(source, 'write the host without a scheme or path, e.g. "api.example.com" or "api.example.com:8443"')
  if (text.includes('%')) throw invalid(source, 'IPv6 zone ids and percent-encoding are not allowed')
  const { host, portText } = splitPort(text, source)
  return { source, port: parsePort(portText, source), ...parseHost(host, source) }
}

function splitPort(text: string, source: string): { host: string; portText?: string } {
  if (text.startsWith('[')) {
    const close = text.indexOf(']')
    if (close === -1) throw invalid(source, 'the "[" is never closed')
    const host = text.slice(1, close)
    const rest = text.slice(close + 1)
    if (isIP(host.split('/')[0]) !== 6) throw invalid(source, 'brackets hold an IPv6 address or CIDR, e.g. "[2001:db8::1]:8443"')
    if (rest && !rest.startsWith(':')) throw invalid(source, 'only ":port" may follow the "]"')
    return { host, portText: rest ? rest.slice(1) : undefined }
  }
  const colons = text.split(':').length - 1
  // Two or more colons: a bare IPv6 address or CIDR, which never carries a port (brackets are for that).
  if (colons >= 2) {
    if (isIP(text.split('/')[0]) !== 6)
      throw invalid(
        source,
        'it is not an IPv6 address; an IPv6 address takes a port only in brackets ("[2001:db8::1]:8443"), a name takes one port ("api.example.com:8443")',
      )
    return { host: text }
  }
  if (colons === 1) {
    const at = text.indexOf(':')
    return { host: text.slice(0, at), portText: text.slice(at + 1) }
  }
  return { host: text }
}

function parsePort(portText: string | undefined, source: string): number | '*' | undefined {
  if (portText === undefined) return undefined
  if (portText === '*') return '*'
  const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : Number.NaN
  if (!(port >= 1 && port <= 65535)) throw invalid(source, `"${portText}" is not a port: use a number from 1 to 65535, or * for any port`)
  return port
}

function parseHost(host: string, source: string): Pick<AllowHostEntry, 'kind' | 'host'> {
  if (!host) throw invalid(source, 'the host is missing')
  if (host.includes('/')) {
    const [base, bits, extra] = host.split('/')
    const width = isIP(base) === 4 ? 32 : isIP(base) === 6 ? 128 : 0
    if (!width || extra !== undefined || !/^[0-9]{1,3}$/.test(bits ?? '') || Number(bits) > width) {
      throw invalid(source, 'a CIDR is an IP address and a prefix length, e.g. "10.0.0.0/8" or "fd00::/8"; a path is not allowed')
    }
    return { kind: 'cidr', host: `${base}/${Number(bits)}` }
  }
  if (isIP(host)) return { kind: 'address', host }
  if (host.startsWith('*.')) {
    const suffix = asciiName(host.slice(2), source)
    if (isIP(suffix)) throw invalid(source, 'a wildcard stands for subdomains of a name, not of an IP address')
    return { kind: 'wildcard', host: suffix }
  }
  if (host.includes('*'))
    throw invalid(source, 'a wildcard is only allowed as a leading "*." (subdomains of a name); to allow every host, leave allowHosts unset')
  const name = asciiName(host, source)
  // WHATWG host parsing turns 127.1 into 127.0.0.1, in URLs and here alike.
  return isIP(name) ? { kind: 'address', host: name } : { kind: 'name', host: name }
}

/** The name as a URL's hostname spells it: punycode, lower case, no trailing dot. */
function asciiName(name: string, source: string): string {
  const ascii = domainToASCII(name).replace(/\.$/, '')
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(ascii)) throw invalid(source, 'it is not a host name, IP address or CIDR')
  return ascii
}

function invalid(source: string, why: string): ConfigurationError {
  return new ConfigurationError(`[spindle/tools-web] the allowHosts entry "${source.slice(0, 200)}" is invalid: ${why}`)
}

function sameAddress(a: string, b: string): boolean {
  const left = parseIp(a)
  const right = parseIp(b)
  return !!left && !!right && left.version === right.version && left.value === right.value
}
