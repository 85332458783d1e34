import { createSocket, type Socket } from 'node:dgram'
import { Resolver } from 'node:dns/promises'
import type { AddressInfo } from 'node:net'
import { SpindleError, type ToolExecutionContext } from '@spindle/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { guardedFetch, httpFetch, vetUrl, webPage, WebToolError, type LookupFunction } from './index.js'

// A real DNS server on loopback that reads every query and never answers, and a real resolver asking it.
let silentDns: Socket
let queries = 0
let resolver: Resolver
let lookup: LookupFunction

beforeAll(async () => {
  silentDns = createSocket('udp4')
  silentDns.on('message', () => queries++)
  await new Promise<void>((resolve) => silentDns.bind(0, '127.0.0.1', resolve))
  resolver = new Resolver({ timeout: 60_000, tries: 1 })
  resolver.setServers([`127.0.0.1:${(silentDns.address() as AddressInfo).port}`])
  lookup = async (hostname) => (await resolver.resolve4(hostname)).map((address) => ({ address, family: 4 }))
})

afterAll(async () => {
  resolver.cancel()
  await new Promise<void>((resolve) => silentDns.close(() => resolve()))
})

async function refusal(pending: unknown): Promise<WebToolError> {
  const error = await Promise.resolve(pending).then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(SpindleError.isInstance(error), `expected a WebToolError, got ${String(error)}`).toBe(true)
  expect((error as Error).message).toMatch(/^\[spindle\/tools-web\] /)
  return error as WebToolError
}

const context = (signal: AbortSignal): ToolExecutionContext => ({ signal }) as unknown as ToolExecutionContext

describe('the deadline and the abort signal while DNS resolves', () => {
  it('http_fetch stops at timeoutMs when the DNS server never answers', async () => {
    const before = queries
    const started = Date.now()
    const error = await refusal(httpFetch({ lookup, timeoutMs: 300 }).execute({ url: 'http://silent.test/' }, context(new AbortController().signal)))
    expect(error.code).toBe('web_timeout')
    expect(error.isRetryable).toBe(true)
    expect(Date.now() - started).toBeLessThan(2000)
    expect(queries).toBeGreaterThan(before) // the lookup really was waiting on the server
  })

  it('http_fetch and web_page stop when the caller aborts during DNS', async () => {
    for (const tool of [httpFetch({ lookup, timeoutMs: 30_000 }), webPage({ lookup, timeoutMs: 30_000 })]) {
      const controller = new AbortController()
      const started = Date.now()
      const pending = tool.execute({ url: 'http://silent.test/' }, context(controller.signal))
      setTimeout(() => controller.abort(), 100)
      expect((await refusal(pending)).code).toBe('web_aborted')
      expect(Date.now() - started).toBeLessThan(2000)
    }
  })

  it('an already aborted signal stops before the lookup; guardedFetch maps it too', async () => {
    const before = queries
    const controller = new AbortController()
    controller.abort()
    expect((await refusal(guardedFetch({ url: 'http://silent.test/', signal: controller.signal }, { lookup }))).code).toBe('web_aborted')
    expect(queries).toBe(before)
  })

  it('vetUrl rejects with the signal reason, like fetch', async () => {
    const timeout = AbortSignal.timeout(100)
    const reason = await vetUrl('http://silent.test/', { lookup }, timeout).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(reason).toBe(timeout.reason)
    expect((reason as Error).name).toBe('TimeoutError')
  })
})
