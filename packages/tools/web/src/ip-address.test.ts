import { describe, expect, it } from 'vitest'
import { addressInCidr, blockedAddressReason } from './index.js'

describe('blockedAddressReason', () => {
  const blocked: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.0.10', /private/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['169.254.169.254', /metadata/],
    ['169.254.1.1', /link-local/],
    ['0.0.0.0', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['198.18.0.1', /benchmarking/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['::ffff:127.0.0.1', /loopback \(IPv4-mapped IPv6\)/],
    ['::ffff:7f00:1', /loopback \(IPv4-mapped IPv6\)/],
    ['0:0:0:0:0:ffff:a00:1', /private \(RFC 1918\) \(IPv4-mapped IPv6\)/],
    ['::ffff:169.254.169.254', /metadata service \(IPv4-mapped IPv6\)/],
    ['::127.0.0.1', /loopback \(IPv4-compatible IPv6\)/],
    ['64:ff9b::127.0.0.1', /loopback \(NAT64 IPv6\)/],
    ['64:ff9b::a9fe:a9fe', /metadata service \(NAT64 IPv6\)/],
    ['64:ff9b:1::1', /local-use NAT64/],
    ['2002:7f00:1::', /loopback \(6to4 IPv6\)/],
    ['2002:c0a8:101::1', /private \(RFC 1918\) \(6to4 IPv6\)/],
    ['fd00:ec2::254', /metadata/],
    ['fc00::1', /unique local/],
    ['fd12:3456:789a::1', /unique local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['[fe80::1]', /link-local/],
    ['febf:ffff::1', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
    ['not-an-ip', /not an IP/],
  ]
  for (const [address, reason] of blocked) {
    it(`blocks ${address}`, () => {
      expect(blockedAddressReason(address)).toMatch(reason)
    })
  }

  for (const address of [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '100.63.255.255',
    '100.128.0.0',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ]) {
    it(`lets the public address ${address} through`, () => {
      expect(blockedAddressReason(address)).toBeUndefined()
    })
  }

  it('matches CIDRs', () => {
    expect(addressInCidr('10.2.3.4', '10.0.0.0/8')).toBe(true)
    expect(addressInCidr('11.2.3.4', '10.0.0.0/8')).toBe(false)
    expect(addressInCidr('127.0.0.1', '127.0.0.1')).toBe(true)
    expect(addressInCidr('::1', '::1/128')).toBe(true)
    expect(addressInCidr('::1', '127.0.0.1')).toBe(false)
    expect(addressInCidr('fd00::5', 'fd00::/8')).toBe(true)
    expect(addressInCidr('1.2.3.4', '1.2.3.4/40')).toBe(false)
  })
})
