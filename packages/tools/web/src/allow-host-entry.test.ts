import { ConfigurationError, SpindleError } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { guardedFetch, hostAllowed, httpFetch, vetUrl, webPage, webTools, WebToolError, type LookupFunction } from './index.js'

// vetUrl connects to nothing: a public answer from an injected lookup is enough to test the host and port rules.
const lookup: LookupFunction = async (name) => [{ address: name.startsWith('internal.') ? '10.0.0.5' : '93.184.215.14', family: 4 }]

async function outcome(url: string, allowHosts: readonly string[] | undefined): Promise<'allowed' | WebToolError> {
  return vetUrl(url, { allowHosts, lookup }).then(
    () => 'allowed' as const,
    (caught: unknown) => {
      expect(SpindleError.isInstance(caught), `expected a WebToolError, got ${String(caught)}`).toBe(true)
      return caught as WebToolError
    },
  )
}

async function expectAllowed(url: string, allowHosts: readonly string[] | undefined): Promise<void> {
  expect(await outcome(url, allowHosts), `${url} with ${JSON.stringify(allowHosts)}`).toBe('allowed')
}

async function expectRefused(url: string, allowHosts: readonly string[], code = 'web_host_not_allowed'): Promise<WebToolError> {
  const result = await outcome(url, allowHosts)
  expect(result, `${url} with ${JSON.stringify(allowHosts)} should be refused`).not.toBe('allowed')
  expect((result as WebToolError).code).toBe(code)
  return result as WebToolError
}

describe('allowHosts ports: an entry without a port allows only the default port of the scheme', () => {
  const allowHosts = ['api.example.com']

  it('allows the default port, implicit or explicit', async () => {
    await expectAllowed('https://api.example.com/v1', allowHosts)
    await expectAllowed('https://api.example.com:443/v1', allowHosts)
    await expectAllowed('http://api.example.com/v1', allowHosts)
    await expectAllowed('http://api.example.com:80/v1', allowHosts)
    await expectAllowed('https://API.Example.com./v1', allowHosts)
  })

  it('refuses every other port, saying the port is the reason and how to allow it', async () => {
    for (const port of [22, 6379, 8080, 8443]) await expectRefused(`https://api.example.com:${port}/`, allowHosts)
    await expectRefused('http://api.example.com:443/', allowHosts) // 443 is not http's default
    const error = await expectRefused('https://api.example.com:8443/v1', allowHosts)
    expect(error.message).toContain('the port 8443 of "api.example.com" is not allowed')
    expect(error.message).toContain('443 for https:')
    expect(error.message).toContain('listing "api.example.com:8443" in allowHosts')
    expect(error.details).toMatchObject({ hostname: 'api.example.com', port: 8443 })
  })

  it('keeps the plain message for a host that is not listed at all', async () => {
    const error = await expectRefused('https://other.example.com/', allowHosts)
    expect(error.message).toContain('the host "other.example.com" is not in the allow-list (api.example.com)')
  })

  it('applies to wildcards, IP literals and CIDRs too', async () => {
    await expectAllowed('https://a.example.com/', ['*.example.com'])
    await expectRefused('https://a.example.com:8443/', ['*.example.com'])
    await expectAllowed('http://93.184.215.14/', ['93.184.215.14'])
    await expectRefused('http://93.184.215.14:8080/', ['93.184.215.14'])
    await expectAllowed('http://10.1.2.3/', ['10.0.0.0/8'])
    await expectRefused('http://10.1.2.3:8080/', ['10.0.0.0/8'])
  })
})

describe('allowHosts ports: host:port and host:*', () => {
  it('host:8443 allows that port only', async () => {
    const allowHosts = ['api.example.com:8443']
    await expectAllowed('https://api.example.com:8443/', allowHosts)
    await expectAllowed('http://api.example.com:8443/', allowHosts)
    await expectRefused('https://api.example.com:8444/', allowHosts)
    const error = await expectRefused('https://api.example.com/', allowHosts)
    expect(error.message).toContain('only on port 8443')
    expect(error.message).toContain('listing "api.example.com" in allowHosts')
  })

  it('a bare entry and a port entry for one host add up', async () => {
    const allowHosts = ['api.example.com', 'api.example.com:8443']
    await expectAllowed('https://api.example.com/', allowHosts)
    await expectAllowed('https://api.example.com:8443/', allowHosts)
    expect((await expectRefused('https://api.example.com:9000/', allowHosts)).message).toContain('only on ports 443, 8443')
  })

  it('host:* allows any port, the default included', async () => {
    for (const url of ['https://api.example.com/', 'http://api.example.com:22/', 'https://api.example.com:65535/'])
      await expectAllowed(url, ['api.example.com:*'])
    await expectAllowed('https://a.b.example.com:6379/', ['*.example.com:*'])
    await expectRefused('https://example.com:6379/', ['*.example.com:*'])
  })

  it('IPv6 entries take a port in brackets; a bare or bracketed one without a port means the default port', async () => {
    await expectAllowed('http://[2001:db8::1]:8443/', ['[2001:db8::1]:8443'])
    await expectAllowed('http://[2001:0db8:0:0::1]:8443/', ['[2001:DB8::1]:8443']) // another spelling of the address
    await expectRefused('http://[2001:db8::1]/', ['[2001:db8::1]:8443'])
    await expectAllowed('http://[2001:db8::1]:1234/', ['[2001:db8::1]:*'])
    for (const entry of ['2001:db8::1', '[2001:db8::1]']) {
      await expectAllowed('http://[2001:db8::1]/', [entry])
      const error = await expectRefused('http://[2001:db8::1]:8443/', [entry])
      expect(error.message).toContain('listing "[2001:db8::1]:8443" in allowHosts')
    }
  })

  it('CIDR entries take a port after the prefix (IPv6 ones in brackets)', async () => {
    await expectAllowed('http://10.1.2.3:8080/', ['10.0.0.0/8:8080'])
    await expectRefused('http://10.1.2.3/', ['10.0.0.0/8:8080'])
    await expectAllowed('http://[fd00::5]:8080/', ['[fd00::/8]:8080'])
    await expectAllowed('http://[fd00::5]:9/', ['[fd00::/8]:*'])
    await expectAllowed('http://[fd00::5]/', ['fd00::/8'])
    await expectRefused('http://[fd00::5]:8080/', ['fd00::/8'])
  })

  it('an IP entry lets an internal address through the SSRF block only on its ports', async () => {
    const allowHosts = ['internal.example:*', '10.0.0.5']
    await expectAllowed('http://internal.example/', allowHosts)
    const error = await expectRefused('http://internal.example:6379/', allowHosts, 'web_address_blocked')
    expect(error.message).toContain('10.0.0.5')
    await expectAllowed('http://internal.example:6379/', ['internal.example:*', '10.0.0.5:6379'])
  })

  it('without allowHosts nothing changes: any port on a public host, the SSRF block still on', async () => {
    await expectAllowed('http://public.example:6379/', undefined)
    await expectAllowed('https://public.example:8443/', undefined)
    expect(((await outcome('http://internal.example/', undefined)) as WebToolError).code).toBe('web_address_blocked')
  })

  it('hostAllowed checks the host and the port of a URL', () => {
    expect(hostAllowed('https://api.example.com/v1', ['api.example.com'])).toBe(true)
    expect(hostAllowed('https://api.example.com:8443/v1', ['api.example.com'])).toBe(false)
    expect(hostAllowed(new URL('https://api.example.com:8443/v1'), ['api.example.com:8443'])).toBe(true)
    expect(hostAllowed('http://[::1]:3000/', ['[::1]:*'])).toBe(true)
    expect(() => hostAllowed('https://api.example.com/', ['api.example.com:0'])).toThrow(ConfigurationError)
  })
})

describe('invalid allowHosts entries are a ConfigurationError at creation, naming the entry', () => {
  const invalid: Array<[string, RegExp]> = [
    ['api.example.com:0', /"0" is not a port/],
    ['api.example.com:70000', /"70000" is not a port/],
    ['api.example.com:abc', /"abc" is not a port/],
    ['api.example.com:', /"" is not a port/],
    ['api.example.com:-1', /is not a port/],
    ['[2001:db8::1]:0', /is not a port/],
    ['10.0.0.0/8:99999', /is not a port/],
    ['', /it is empty/],
    ['https://api.example.com', /without a scheme/],
    ['api.example.com/v1', /a path is not allowed/],
    ['10.0.0.0/33', /CIDR/],
    ['*', /leading "\*\."/],
    ['api*.example.com', /leading "\*\."/],
    ['*.10.0.0.1', /not of an IP address/],
    ['[2001:db8::1', /never closed/],
    ['[api.example.com]:443', /brackets hold an IPv6/],
    ['[::1]8443', /only ":port" may follow/],
    ['2001:db8::zz:8443', /not an IPv6 address/],
    ['api.example.com:80:90', /not an IPv6 address/],
    ['exa mple.com', /not a host name/],
    ['user@example.com', /not a host name/],
    ['fe80::1%eth0', /zone/],
  ]
  for (const [entry, why] of invalid) {
    it(JSON.stringify(entry), async () => {
      const allowHosts = ['fine.example.com', entry]
      for (const create of [() => httpFetch({ allowHosts }), () => webPage({ allowHosts }), () => webTools({ allowHosts })]) {
        expect(create).toThrow(ConfigurationError)
        expect(create).toThrow(`[spindle/tools-web] the allowHosts entry "${entry}" is invalid`)
        expect(create).toThrow(why)
      }
      // Called directly, the guard refuses the configuration too: never a silent non-match.
      await expect(guardedFetch({ url: 'https://fine.example.com/' }, { allowHosts, lookup })).rejects.toThrow(ConfigurationError)
      await expect(vetUrl('https://fine.example.com/', { allowHosts, lookup })).rejects.toThrow(ConfigurationError)
    })
  }

  it('accepts the valid forms', () => {
    const allowHosts = [
      'api.example.com',
      'API.example.com.',
      'api.example.com:8443',
      'api.example.com:*',
      '*.example.com',
      '*.example.com:8080',
      'bücher.example',
      '127.0.0.1',
      '127.0.0.1:8080',
      '::1',
      '[::1]',
      '[::1]:8443',
      '[::1]:*',
      '10.0.0.0/8',
      '10.0.0.0/8:8080',
      'fd00::/8',
      '[fd00::/8]:8080',
      ' spaced.example.com ',
    ]
    expect(() => httpFetch({ allowHosts })).not.toThrow()
  })

  it('an internationalized name matches its punycode URL host', () => {
    expect(hostAllowed('https://xn--bcher-kva.example/', ['bücher.example'])).toBe(true)
    expect(hostAllowed('https://bücher.example/', ['bücher.example'])).toBe(true)
  })
})
