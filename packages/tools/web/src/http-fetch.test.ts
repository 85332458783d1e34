import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { ConfigurationError, parseToolInput, SpindleError, type Tool, type ToolExecutionContext } from '@spindle/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpFetch, vetUrl, webPage, webTools, WebToolError, type LookupFunction } from './index.js'

const context = {
  runId: 'r',
  sessionId: 's',
  step: 0,
  callId: 'c',
  toolName: 't',
  idempotencyKey: 'r:0:c',
  signal: new AbortController().signal,
  runtime: undefined,
} as unknown as ToolExecutionContext

async function call<T>(tool: Tool<any, T>, args: unknown): Promise<T> {
  const parsed = parseToolInput(tool, args)
  if (!parsed.success) throw new Error(`invalid arguments: ${parsed.error}`)
  return tool.execute(parsed.value, context)
}

async function refusal(promise: Promise<unknown>): Promise<WebToolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error, 'the request should have been refused').toBeDefined()
  expect(SpindleError.isInstance(error)).toBe(true)
  expect((error as Error).message).toMatch(/^\[spindle\/tools-web\] /)
  return error as WebToolError
}

interface TestServer {
  url: string
  port: number
  hits: Array<{ url: string; host: string | undefined; headers: http.IncomingHttpHeaders; method: string }>
  close(): Promise<void>
}

async function startServer(host: string, handler: http.RequestListener): Promise<TestServer> {
  const hits: TestServer['hits'] = []
  const server = http.createServer((request, response) => {
    hits.push({ url: request.url ?? '', host: request.headers.host, headers: request.headers, method: request.method ?? '' })
    handler(request, response)
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://${host}:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

let site: TestServer
let internal: TestServer

beforeAll(async () => {
  internal = await startServer('127.0.0.2', (_request, response) => response.end('INTERNAL SECRET'))
  site = await startServer('127.0.0.1', (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x')
    switch (url.pathname) {
      case '/hello':
        response.setHeader('content-type', 'text/plain; charset=utf-8')
        response.end('hello from loopback')
        return
      case '/json':
        response.setHeader('content-type', 'application/json')
        response.end(JSON.stringify({ ok: true, method: request.method, auth: request.headers.authorization ?? null }))
        return
      case '/redirect':
        response.statusCode = Number(url.searchParams.get('status') ?? 302)
        response.setHeader('location', url.searchParams.get('to') ?? '/hello')
        response.end()
        return
      case '/headers':
        response.setHeader('content-type', 'application/json')
        response.end(JSON.stringify(request.headers))
        return
      case '/loop':
        response.statusCode = 302
        response.setHeader('location', '/loop')
        response.end()
        return
      case '/big':
        response.setHeader('content-type', 'text/plain')
        response.setHeader('content-length', String(100_000))
        response.end('x'.repeat(100_000))
        return
      case '/big-chunked':
        response.setHeader('content-type', 'text/plain')
        for (let index = 0; index < 100; index++) response.write('y'.repeat(1000))
        response.end()
        return
      case '/gzip-bomb':
        response.setHeader('content-type', 'text/plain')
        response.setHeader('content-encoding', 'gzip')
        response.end(gzipSync(Buffer.alloc(20 * 1024 * 1024)))
        return
      case '/gzip':
        response.setHeader('content-type', 'text/plain')
        response.setHeader('content-encoding', 'gzip')
        response.end(gzipSync('compressed hello'))
        return
      case '/slow':
        return // never answers
      case '/binary':
        response.setHeader('content-type', 'image/png')
        response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]))
        return
      case '/page':
        response.setHeader('content-type', 'text/html')
        response.end(
          '<html><head><title>Loopback page</title><script>steal()</script></head><body><h1>Docs</h1><p>See <a href="/hello">hello</a>.</p></body></html>',
        )
        return
      default:
        response.statusCode = 404
        response.end('not found')
    }
  })
})

afterAll(async () => {
  await Promise.all([site.close(), internal.close()])
})

describe('httpFetch: the SSRF guard against a real loopback server', () => {
  it('blocks the loopback server by default, and sends it nothing', async () => {
    const before = site.hits.length
    const error = await refusal(call(httpFetch(), { url: `${site.url}/hello` }))
    expect(error.code).toBe('web_address_blocked')
    expect(error.message).toContain('127.0.0.1')
    expect(error.message).toContain('loopback')
    expect(error.message).toContain('allowPrivateAddresses')
    expect(site.hits.length).toBe(before)
  })

  it('blocks localhost by name (real DNS)', async () => {
    expect((await refusal(call(httpFetch(), { url: `http://localhost:${site.port}/hello` }))).code).toBe('web_address_blocked')
  })

  it('fetches it when explicitly allowed with allowPrivateAddresses', async () => {
    const result = await call(httpFetch({ allowPrivateAddresses: true }), { url: `${site.url}/hello` })
    expect(result).toMatchObject({ status: 200, encoding: 'utf8', body: 'hello from loopback', url: `${site.url}/hello` })
  })

  it('fetches it when 127.0.0.1 and its port are on the host allow-list, and refuses other hosts', async () => {
    const tool = httpFetch({ allowHosts: [`127.0.0.1:${site.port}`] })
    expect((await call(tool, { url: `${site.url}/hello` })).body).toBe('hello from loopback')
    expect((await refusal(call(tool, { url: 'http://example.com/' }))).code).toBe('web_host_not_allowed')
    // The allow-list entry is an address, so its other spellings match it too.
    expect((await call(tool, { url: `http://2130706433:${site.port}/hello` })).body).toBe('hello from loopback')
    // ...but not a different internal address.
    expect((await refusal(call(tool, { url: `${internal.url}/` }))).code).toBe('web_host_not_allowed')
    expect(internal.hits).toHaveLength(0)
  })

  it('connects to the checked address and keeps the Host header (DNS rebinding cannot swap it)', async () => {
    const answers = ['127.0.0.1', '127.0.0.2']
    let lookups = 0
    const lookup: LookupFunction = async () => [{ address: answers[Math.min(lookups++, 1)], family: 4 }]
    const tool = httpFetch({ allowHosts: ['rebind.test:*', '127.0.0.1:*'], lookup })
    const before = site.hits.length
    const result = await call(tool, { url: `http://rebind.test:${site.port}/hello` })
    expect(result.body).toBe('hello from loopback')
    expect(lookups).toBe(1) // Node did not resolve the name again behind our back
    expect(site.hits.slice(before)[0].host).toBe(`rebind.test:${site.port}`)
    // The second resolution now points at another internal address: refused before connecting.
    expect((await refusal(call(tool, { url: `http://rebind.test:${internal.port}/` }))).code).toBe('web_address_blocked')
    expect(internal.hits).toHaveLength(0)
  })

  it('refuses a name that resolves to any blocked address, even mixed with public ones', async () => {
    const lookup: LookupFunction = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '::ffff:169.254.169.254', family: 6 },
    ]
    const error = await refusal(vetUrl('http://mixed.test/', { lookup }))
    expect(error.code).toBe('web_address_blocked')
    expect(error.message).toContain('mixed.test resolves to it')
    const failing: LookupFunction = async () => {
      throw new Error('getaddrinfo ENOTFOUND nowhere.test')
    }
    expect((await refusal(vetUrl('http://nowhere.test/', { lookup: failing }))).code).toBe('web_dns_failed')
    expect((await refusal(vetUrl('http://empty.test/', { lookup: async () => [] }))).code).toBe('web_dns_failed')
  })

  it('blocks a redirect from an allowed host to a private one, and the private server gets nothing', async () => {
    const lookup: LookupFunction = async (name) => [{ address: name === 'internal.test' ? '127.0.0.2' : '127.0.0.1', family: 4 }]
    const tool = httpFetch({ allowHosts: ['127.0.0.1:*', 'internal.test:*'], lookup })
    const to = encodeURIComponent(`http://internal.test:${internal.port}/`)
    const error = await refusal(call(tool, { url: `${site.url}/redirect?to=${to}` }))
    expect(error.code).toBe('web_address_blocked')
    expect(error.message).toContain('127.0.0.2')
    expect(internal.hits).toHaveLength(0)
  })

  const redirectTargets = [
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:127.0.0.2]/',
    'http://[fd00:ec2::254]/',
    'http://0x7f.0.0.2/',
    'http://10.0.0.1/',
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_FLUSHALL',
  ]
  for (const target of redirectTargets) {
    it(`re-checks the redirect to ${target}`, async () => {
      const tool = httpFetch({ allowHosts: [`127.0.0.1:${site.port}`] })
      const before = site.hits.length
      const error = await refusal(call(tool, { url: `${site.url}/redirect?status=307&to=${encodeURIComponent(target)}` }))
      expect(site.hits.length).toBe(before + 1) // the first hop was allowed: the redirect is what got refused
      expect(['web_address_blocked', 'web_host_not_allowed', 'web_scheme_not_allowed']).toContain(error.code)
    })
  }

  it('follows allowed redirects, caps them, and drops credentials across origins', async () => {
    const tool = httpFetch({ allowPrivateAddresses: true, maxRedirects: 3 })
    const followed = await call(tool, { url: `${site.url}/redirect?to=/hello` })
    expect(followed.body).toBe('hello from loopback')
    expect(followed.redirects).toEqual([`${site.url}/hello`])
    expect((await refusal(call(tool, { url: `${site.url}/loop` }))).code).toBe('web_too_many_redirects')

    const sameOrigin = await call(tool, { url: `${site.url}/redirect?to=/json`, headers: { authorization: 'Bearer t' } })
    expect(JSON.parse(sameOrigin.body).auth).toBe('Bearer t')
    const otherOrigin = `http://localhost:${site.port}/json`
    const crossOrigin = await call(tool, { url: `${site.url}/redirect?to=${encodeURIComponent(otherOrigin)}`, headers: { authorization: 'Bearer t' } })
    expect(JSON.parse(crossOrigin.body).auth).toBeNull()
  })

  it('drops every credential header across origins (custom key and token headers too), from the caller and the options', async () => {
    const tool = httpFetch({
      allowPrivateAddresses: true,
      allowHosts: [`127.0.0.1:${site.port}`, `localhost:${site.port}`],
      headers: { 'x-api-key': 'operator-key-123', 'x-trace': 'kept' },
      publicHeaders: ['x-trace'],
    })
    const headers = { authorization: 'Bearer t', 'api-key': 'azure-key-456', 'x-auth-token': 'gateway-token-789', cookie: 'session=abc', 'x-request-id': 'r-1' }
    const sameOrigin = JSON.parse((await call(tool, { url: `${site.url}/redirect?to=/headers`, headers })).body)
    expect(sameOrigin).toMatchObject({
      authorization: 'Bearer t',
      'x-api-key': 'operator-key-123',
      'api-key': 'azure-key-456',
      'x-auth-token': 'gateway-token-789',
      cookie: 'session=abc',
    })
    const otherOrigin = `http://localhost:${site.port}/headers`
    const crossOrigin = JSON.parse((await call(tool, { url: `${site.url}/redirect?to=${encodeURIComponent(otherOrigin)}`, headers })).body)
    for (const name of ['authorization', 'x-api-key', 'api-key', 'x-auth-token', 'cookie']) expect(crossOrigin[name], name).toBeUndefined()
    expect(crossOrigin).toMatchObject({ 'x-trace': 'kept', 'x-request-id': 'r-1' })
  })

  it('refuses credential headers in its options without allowHosts: the model would choose where they go', () => {
    const credentials: Array<Record<string, string>> = [{ Authorization: 'Bearer operator' }, { 'x-api-key': 'k-1' }, { Cookie: 'session=1' }]
    for (const headers of credentials) {
      expect(() => httpFetch({ headers })).toThrow(ConfigurationError)
      expect(() => webPage({ headers })).toThrow(/allowHosts is not set, so the model could send it to any host/)
      expect(() => httpFetch({ headers, allowHosts: ['api.example.com'] })).not.toThrow()
    }
    expect(() => httpFetch({ headers: { 'User-Agent': 'spindle', 'x-trace': '1' }, publicHeaders: ['user-agent', 'X-Trace'] })).not.toThrow()
  })

  it('cuts an oversized body with a clear error (declared length, chunked, and a gzip bomb)', async () => {
    const tool = httpFetch({ allowPrivateAddresses: true, maxBytes: 10_000 })
    for (const path of ['/big', '/big-chunked', '/gzip-bomb']) {
      const error = await refusal(call(tool, { url: `${site.url}${path}` }))
      expect(error.code).toBe('web_too_large')
      expect(error.message).toContain('10000-byte limit')
    }
    expect((await call(tool, { url: `${site.url}/gzip` })).body).toBe('compressed hello')
  })

  it('stops a request that takes too long', async () => {
    const started = Date.now()
    const error = await refusal(call(httpFetch({ allowPrivateAddresses: true, timeoutMs: 300 }), { url: `${site.url}/slow` }))
    expect(error.code).toBe('web_timeout')
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('honours the caller abort signal', async () => {
    const controller = new AbortController()
    const tool = httpFetch({ allowPrivateAddresses: true })
    const pending = tool.execute({ url: `${site.url}/slow` }, { ...context, signal: controller.signal })
    setTimeout(() => controller.abort(), 50)
    expect((await refusal(Promise.resolve(pending))).code).toBe('web_aborted')
  })

  it('returns binary bodies as base64', async () => {
    const result = await call(httpFetch({ allowPrivateAddresses: true }), { url: `${site.url}/binary` })
    expect(result.encoding).toBe('base64')
    expect(Buffer.from(result.body, 'base64')).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]))
  })

  it('enforces schemes, methods and header rules', async () => {
    const tool = httpFetch({ allowPrivateAddresses: true })
    expect((await refusal(call(tool, { url: 'file:///etc/passwd' }))).code).toBe('web_scheme_not_allowed')
    expect((await refusal(call(tool, { url: 'ftp://example.com/' }))).code).toBe('web_scheme_not_allowed')
    expect((await refusal(call(tool, { url: 'not a url' }))).code).toBe('web_invalid_url')
    expect((await refusal(call(tool, { url: `http://user:pass@127.0.0.1:${site.port}/` }))).code).toBe('web_invalid_url')
    expect((await refusal(call(httpFetch({ allowedSchemes: ['https'], allowPrivateAddresses: true }), { url: `${site.url}/hello` }))).code).toBe(
      'web_scheme_not_allowed',
    )
    expect((await refusal(call(tool, { url: `${site.url}/hello`, headers: { host: 'evil.test' } }))).code).toBe('web_invalid_url')
    expect((await refusal(call(tool, { url: `${site.url}/hello`, headers: { 'x-a': 'b\r\nx-injected: 1' } }))).code).toBe('web_invalid_url')
    expect(() => parseToolInput(tool, { url: `${site.url}/json`, method: 'POST' })).not.toThrow()
    expect(parseToolInput(tool, { url: `${site.url}/json`, method: 'POST' }).success).toBe(false)
    const poster = httpFetch({ allowPrivateAddresses: true, allowedMethods: ['GET', 'POST'] })
    expect(JSON.parse((await call(poster, { url: `${site.url}/json`, method: 'POST', body: '{}' })).body).method).toBe('POST')
  })

  it('declares its effect: read-only by default, external and approval-gated with unsafe methods', () => {
    const reader = httpFetch()
    expect(reader).toMatchObject({ name: 'http_fetch', effect: 'read', idempotent: true, needsApproval: false })
    const writer = httpFetch({ allowedMethods: ['GET', 'POST'] })
    expect(writer).toMatchObject({ effect: 'external', idempotent: false, needsApproval: true })
    expect(Object.keys(webTools())).toEqual(['http_fetch', 'web_page'])
  })
})

describe('allowHosts ports against real loopback servers', () => {
  let other: TestServer
  let ipv6: TestServer | undefined

  beforeAll(async () => {
    other = await startServer('127.0.0.1', (_request, response) => response.end('OTHER PORT'))
    // Reason for the optional server: a sandbox without IPv6 loopback skips the bracket test.
    ipv6 = await startServer('::1', (_request, response) => response.end('hello over ipv6')).catch(() => undefined)
  })

  afterAll(async () => {
    await Promise.all([other.close(), ipv6?.close()])
  })

  it('host:port allows that port of the host and no other', async () => {
    const tool = httpFetch({ allowHosts: [`127.0.0.1:${site.port}`] })
    expect((await call(tool, { url: `${site.url}/hello` })).body).toBe('hello from loopback')
    const error = await refusal(call(tool, { url: `${other.url}/` }))
    expect(error.code).toBe('web_host_not_allowed')
    expect(error.message).toContain(`the port ${other.port} of "127.0.0.1" is not allowed`)
    expect(error.message).toContain(`listing "127.0.0.1:${other.port}" in allowHosts`)
    expect(other.hits).toHaveLength(0)
  })

  it('an entry without a port allows only the default port: the loopback server on its own port is refused and gets nothing', async () => {
    const tools: Array<Tool<any, unknown>> = [httpFetch({ allowHosts: ['127.0.0.1'] }), webPage({ allowHosts: ['127.0.0.1'] })]
    for (const tool of tools) {
      const before = site.hits.length
      const error = await refusal(call(tool, { url: `${site.url}/hello` }))
      expect(error.code).toBe('web_host_not_allowed')
      expect(error.message).toContain('only on port 80')
      expect(site.hits.length).toBe(before)
    }
  })

  it('host:* allows every port of the host', async () => {
    const tool = httpFetch({ allowHosts: ['127.0.0.1:*'] })
    expect((await call(tool, { url: `${site.url}/hello` })).body).toBe('hello from loopback')
    expect((await call(tool, { url: `${other.url}/` })).body).toBe('OTHER PORT')
    expect((await refusal(call(tool, { url: `${internal.url}/` }))).code).toBe('web_host_not_allowed')
  })

  it('re-checks the port on redirects: another port of an allowed host is refused unless listed', async () => {
    const to = encodeURIComponent(`http://127.0.0.1:${other.port}/`)
    const tool = httpFetch({ allowHosts: [`127.0.0.1:${site.port}`] })
    const before = site.hits.length
    const otherBefore = other.hits.length
    for (const status of [301, 302, 307, 308]) {
      const error = await refusal(call(tool, { url: `${site.url}/redirect?status=${status}&to=${to}` }))
      expect(error.code).toBe('web_host_not_allowed')
      expect(error.message).toContain(`the port ${other.port} of "127.0.0.1"`)
    }
    expect(site.hits.length).toBe(before + 4) // each first hop went through
    expect((await refusal(call(webPage({ allowHosts: [`127.0.0.1:${site.port}`] }), { url: `${site.url}/redirect?to=${to}` }))).code).toBe(
      'web_host_not_allowed',
    )
    expect(other.hits.length).toBe(otherBefore)
    // The same port is followed, and so is another one once it is listed.
    expect((await call(tool, { url: `${site.url}/redirect?to=/hello` })).body).toBe('hello from loopback')
    const both = httpFetch({ allowHosts: [`127.0.0.1:${site.port}`, `127.0.0.1:${other.port}`] })
    expect((await call(both, { url: `${site.url}/redirect?to=${to}` })).body).toBe('OTHER PORT')
  })

  it('IPv6 entries take the port in brackets', async (test) => {
    // Reason for the skip: a machine without IPv6 loopback cannot listen on ::1 (the server start failed above).
    if (!ipv6) return test.skip('no IPv6 loopback (::1) on this machine')
    const url = `http://[::1]:${ipv6.port}/`
    expect((await call(httpFetch({ allowHosts: [`[::1]:${ipv6.port}`] }), { url })).body).toBe('hello over ipv6')
    expect((await call(httpFetch({ allowHosts: ['[::1]:*'] }), { url })).body).toBe('hello over ipv6')
    for (const entry of ['::1', '[::1]', `[::1]:${ipv6.port + 1}`]) {
      const error = await refusal(call(httpFetch({ allowHosts: [entry] }), { url }))
      expect(error.code).toBe('web_host_not_allowed')
      expect(error.message).toContain(`listing "[::1]:${ipv6.port}" in allowHosts`)
    }
    expect(ipv6.hits).toHaveLength(2)
  })
})

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

// Reason for the skip: the certificate is generated at run time with the openssl binary (no key is committed).
describe.skipIf(!hasOpenssl())('httpFetch over https with the connection pinned to the checked address', () => {
  it('keeps SNI and certificate verification on the host name while connecting to the vetted IP', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spindle-tls-'))
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=secure.test',
          '-addext',
          'subjectAltName=DNS:secure.test',
        ],
        { stdio: 'ignore' },
      )
      const cert = readFileSync(path.join(dir, 'cert.pem'))
      const servernames: Array<string | false | undefined> = []
      const server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert }, (request, response) => {
        servernames.push((request.socket as unknown as { servername?: string | false }).servername)
        response.end(`tls ok for ${request.headers.host}`)
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const port = (server.address() as AddressInfo).port
      try {
        const lookup: LookupFunction = async () => [{ address: '127.0.0.1', family: 4 }]
        const tool = httpFetch({ allowHosts: [`secure.test:${port}`, `127.0.0.1:${port}`], lookup, ca: cert })
        const result = await call(tool, { url: `https://secure.test:${port}/` })
        expect(result.body).toBe(`tls ok for secure.test:${port}`)
        expect(servernames).toEqual(['secure.test'])
        // Without the CA the certificate is not trusted: verification stays on.
        const untrusted = await refusal(
          call(httpFetch({ allowHosts: [`secure.test:${port}`, `127.0.0.1:${port}`], lookup }), { url: `https://secure.test:${port}/` }),
        )
        expect(untrusted.code).toBe('web_request_failed')
        expect(untrusted.message).toMatch(/self[- ]signed|certificate/i)
      } finally {
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('hostile URL forms are all refused by default', () => {
  const forms = [
    'http://127.0.0.1/',
    'http://127.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://017700000001/',
    'http://0/',
    'http://0.0.0.0/',
    'http://[::]/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:7f00:1::]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0xa9fea9fe/',
    'http://[fd00:ec2::254]/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://[ff02::1]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://127.0.0.1.:8080/',
    'https://127.0.0.1/',
  ]
  for (const form of forms) {
    it(form, async () => {
      const error = await refusal(vetUrl(form, {}))
      expect(error.code).toBe('web_address_blocked')
    })
  }
})

describe('webPage', () => {
  it('returns readable text and links from a loopback page when allowed', async () => {
    const result = await call(webPage({ allowPrivateAddresses: true }), { url: `${site.url}/page` })
    expect(result.title).toBe('Loopback page')
    expect(result.text).toBe('# Docs\n\nSee hello.')
    expect(result.links).toEqual([{ text: 'hello', href: `${site.url}/hello` }])
    expect(result.text).not.toContain('steal')
  })

  it('is blocked by default and truncates long text', async () => {
    expect((await refusal(call(webPage(), { url: `${site.url}/page` }))).code).toBe('web_address_blocked')
    const short = await call(webPage({ allowPrivateAddresses: true, maxChars: 5 }), { url: `${site.url}/hello` })
    expect(short.truncated).toBe(true)
    expect(short.text.startsWith('hello')).toBe(true)
  })

  it('refuses binary content', async () => {
    expect((await refusal(call(webPage({ allowPrivateAddresses: true }), { url: `${site.url}/binary` }))).code).toBe('web_request_failed')
  })
})
