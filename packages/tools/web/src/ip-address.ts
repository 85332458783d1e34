// IP literal parsing and the SSRF block list: private, loopback, link-local, CGNAT, metadata,
// unspecified, multicast, reserved, IPv6 ULA/link-local, and IPv4 embedded in IPv6
// (mapped, compatible, NAT64, 6to4), so no spelling of 127.0.0.1 gets through.
import { isIP } from 'node:net'

export type IpVersion = 4 | 6

export interface ParsedIp {
  version: IpVersion
  /** 32-bit (v4) or 128-bit (v6) value. */
  value: bigint
}

/** Parses a canonical dotted IPv4 or an IPv6 literal (brackets and a zone id tolerated). */
export function parseIp(input: string): ParsedIp | undefined {
  let text = input.trim()
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1)
  const zone = text.indexOf('%')
  if (zone !== -1) text = text.slice(0, zone)
  const version = isIP(text)
  if (version === 4) return { version: 4, value: parseIpv4(text) }
  if (version === 6) return { version: 6, value: parseIpv6(text) }
  return undefined
}

function parseIpv4(text: string): bigint {
  return text.split('.').reduce((total, part) => (total << 8n) | BigInt(Number(part)), 0n)
}

function parseIpv6(text: string): bigint {
  let head = text
  let tailV4: bigint | undefined
  const lastColon = text.lastIndexOf(':')
  if (text.slice(lastColon + 1).includes('.')) {
    tailV4 = parseIpv4(text.slice(lastColon + 1))
    head = `${text.slice(0, lastColon + 1)}0:0`
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined]
  const leftGroups = left ? left.split(':') : []
  const rightGroups = right === undefined ? [] : right ? right.split(':') : []
  const fill = right === undefined ? 0 : 8 - leftGroups.length - rightGroups.length
  const groups = [...leftGroups, ...Array<string>(fill).fill('0'), ...rightGroups]
  let value = groups.reduce((total, group) => (total << 16n) | BigInt(parseInt(group || '0', 16)), 0n)
  if (tailV4 !== undefined) value = (value & ~0xffffffffn) | tailV4
  return value
}

export function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.')
}

interface Range {
  base: bigint
  bits: number
  reason: string
}

function v4(cidr: string, reason: string): Range {
  const [address, bits] = cidr.split('/')
  return { base: parseIpv4(address), bits: Number(bits), reason }
}

function v6(cidr: string, reason: string): Range {
  const [address, bits] = cidr.split('/')
  return { base: parseIpv6(address), bits: Number(bits), reason }
}

const blockedV4: Range[] = [
  v4('0.0.0.0/8', 'unspecified / "this network"'),
  v4('10.0.0.0/8', 'private (RFC 1918)'),
  v4('100.64.0.0/10', 'carrier-grade NAT (RFC 6598)'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.169.254/32', 'cloud metadata service'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private (RFC 1918)'),
  v4('192.0.0.0/24', 'IETF protocol assignments'),
  v4('192.0.2.0/24', 'documentation (TEST-NET-1)'),
  v4('192.88.99.0/24', '6to4 relay anycast'),
  v4('192.168.0.0/16', 'private (RFC 1918)'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation (TEST-NET-2)'),
  v4('203.0.113.0/24', 'documentation (TEST-NET-3)'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
]

const blockedV6: Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('fd00:ec2::254/128', 'cloud metadata service'),
  v6('64:ff9b:1::/48', 'local-use NAT64'),
  v6('100::/64', 'discard-only'),
  v6('2001::/32', 'Teredo tunnel'),
  v6('2001:db8::/32', 'documentation'),
  v6('fc00::/7', 'unique local (ULA)'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local (deprecated)'),
  v6('ff00::/8', 'multicast'),
]

/** IPv6 prefixes that carry an IPv4 address; the embedded address is checked in turn. */
const embeddingV6: Array<{ range: Range; extract(value: bigint): bigint }> = [
  { range: v6('::ffff:0:0/96', 'IPv4-mapped'), extract: (value) => value & 0xffffffffn },
  { range: v6('::ffff:0:0:0/96', 'IPv4-translated'), extract: (value) => value & 0xffffffffn },
  { range: v6('64:ff9b::/96', 'NAT64'), extract: (value) => value & 0xffffffffn },
  { range: v6('2002::/16', '6to4'), extract: (value) => (value >> 80n) & 0xffffffffn },
  { range: v6('::/96', 'IPv4-compatible'), extract: (value) => value & 0xffffffffn },
]

function inRange(value: bigint, range: Range, width: number): boolean {
  const shift = BigInt(width - range.bits)
  return value >> shift === range.base >> shift
}

/**
 * Why an address must not be reached, or `undefined` when it is a public unicast address.
 *
 * @example
 * blockedAddressReason('::ffff:127.0.0.1') // 'loopback (IPv4-mapped IPv6)'
 */
export function blockedAddressReason(address: string): string | undefined {
  const parsed = parseIp(address)
  if (!parsed) return 'not an IP address'
  if (parsed.version === 4) {
    if (parsed.value === 0xffffffffn) return 'broadcast'
    return blockedV4.find((range) => inRange(parsed.value, range, 32))?.reason
  }
  for (const { range, extract } of embeddingV6) {
    if (inRange(parsed.value, range, 128) && !(range.bits === 96 && parsed.value <= 1n)) {
      const inner = blockedAddressReason(formatIpv4(extract(parsed.value)))
      return inner ? `${inner} (${range.reason} IPv6)` : undefined
    }
  }
  return blockedV6.find((range) => inRange(parsed.value, range, 128))?.reason
}

/** True when `address` lies in `cidr` (`10.0.0.0/8`, `::1/128`, or a bare address). */
export function addressInCidr(address: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/')
  const parsedBase = parseIp(base)
  const parsedAddress = parseIp(address)
  if (!parsedBase || !parsedAddress || parsedBase.version !== parsedAddress.version) return false
  const width = parsedBase.version === 4 ? 32 : 128
  const bits = bitsText === undefined ? width : Number(bitsText)
  if (!Number.isInteger(bits) || bits < 0 || bits > width) return false
  return inRange(parsedAddress.value, { base: parsedBase.value, bits, reason: '' }, width)
}
