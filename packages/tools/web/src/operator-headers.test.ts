// Operator headers are secrets unless declared public: across two real loopback origins (two ports), a redirect to
// the other origin carries only the public ones, whatever the header names look like.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { ConfigurationError, parseToolInput, type Tool, type ToolExecutionContext } from '@spindle/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpFetch, webPage, webTools } from './index.js'

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

interface Origin {
  url: string
  received: http.IncomingHttpHeaders[]
  close(): Promise<void>
}

/** A loopback server that redirects `/redirect?to=` and records the headers of every other request. */
async function startOrigin(): Promise<Origin> {
  const received: http.IncomingHttpHeaders[] = []
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x')
    if (url.pathname === '/redirect') {
      response.statusCode = 302
      response.setHeader('location', url.searchParams.get('to') ?? '/')
      response.end()
      return
    }
    received.push(request.headers)
    response.setHeader('content-type', 'text/plain')
    response.end('ok')
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

let first: Origin
let second: Origin

beforeAll(async () => {
  ;[first, second] = await Promise.all([startOrigin(), startOrigin()])
})

afterAll(async () => {
  await Promise.all([first.close(), second.close()])
})

const operatorHeaders = {
  'X-Session-Id': 'session-4f1c',
  'X-Signature': 'sig-9a8b7c',
  'X-Goog-Iap-Jwt-Assertion': 'eyJhbGciOi.jwt.assertion',
  'X-Api-Key': 'operator-key-123',
  'Accept-Language': 'fr-CH',
  'X-Trace': 'trace-1',
}
const secretNames = ['x-session-id', 'x-signature', 'x-goog-iap-jwt-assertion', 'x-api-key']

describe('operator headers on a redirect to another origin (two loopback ports)', () => {
  it('sends every operator header to the first origin and a same-origin redirect, but only the public ones to the other origin', async () => {
    const tool = httpFetch({ allowHosts: ['127.0.0.1:*'], headers: operatorHeaders, publicHeaders: ['Accept-Language', 'x-trace'] })

    await call(tool, { url: `${first.url}/redirect?to=/page` })
    const sameOrigin = first.received.at(-1)!
    for (const [name, value] of Object.entries(operatorHeaders)) expect(sameOrigin[name.toLowerCase()], name).toBe(value)

    const beforeFirst = first.received.length
    await call(tool, { url: `${first.url}/redirect?to=${encodeURIComponent(`${second.url}/page`)}` })
    expect(first.received.length).toBe(beforeFirst) // the first origin only redirected
    const crossOrigin = second.received.at(-1)!
    for (const name of secretNames) expect(crossOrigin[name], name).toBeUndefined()
    expect(crossOrigin['accept-language']).toBe('fr-CH')
    expect(crossOrigin['x-trace']).toBe('trace-1')
    expect(crossOrigin['user-agent']).toBe('spindle-tools-web') // the tool's own defaults are not the operator's
  })

  it('keeps dropping them on a later hop back to the first origin, and in web_page too', async () => {
    const back = encodeURIComponent(`${first.url}/back`)
    const viaSecond = encodeURIComponent(`${second.url}/redirect?to=${back}`)
    for (const tool of [
      httpFetch({ allowHosts: ['127.0.0.1:*'], headers: operatorHeaders }),
      webPage({ allowHosts: ['127.0.0.1:*'], headers: operatorHeaders }),
    ]) {
      await call(tool as Tool<any, unknown>, { url: `${first.url}/redirect?to=${viaSecond}` })
      const returned = first.received.at(-1)!
      for (const name of [...secretNames, 'accept-language', 'x-trace']) expect(returned[name], name).toBeUndefined()
    }
  })
})

describe('operator headers at tool creation', () => {
  it('refuses a header not declared public without allowHosts, whatever its name, naming it and the two ways out', () => {
    for (const name of ['X-Session-Id', 'X-Signature', 'X-Goog-Iap-Jwt-Assertion', 'User-Agent']) {
      for (const create of [httpFetch, webPage, webTools]) {
        expect(() => create({ headers: { [name]: 'v' } }), name).toThrow(ConfigurationError)
      }
      expect(() => httpFetch({ headers: { [name]: 'v' } })).toThrow(`headers carries ${name}, not declared public, but allowHosts is not set`)
      expect(() => httpFetch({ headers: { [name]: 'v' } })).toThrow(/list the hosts it is for in allowHosts, or name the header in publicHeaders/)
      expect(() => httpFetch({ headers: { [name]: 'v' }, allowHosts: ['api.example.com'] })).not.toThrow()
      expect(() => httpFetch({ headers: { [name]: 'v' }, publicHeaders: [name.toLowerCase()] })).not.toThrow()
    }
  })

  it('refuses a credential-named header in publicHeaders, and a blank entry', () => {
    for (const name of ['Authorization', 'Cookie', 'X-Api-Key', 'X-Auth-Token']) {
      expect(() => httpFetch({ headers: { [name]: 'v' }, publicHeaders: [name], allowHosts: ['api.example.com'] })).toThrow(
        `publicHeaders lists "${name}", whose name says it carries a credential`,
      )
    }
    expect(() => httpFetch({ publicHeaders: [' '] })).toThrow(ConfigurationError)
  })
})
