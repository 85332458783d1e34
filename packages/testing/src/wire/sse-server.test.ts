import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { encodeSseEvent, startScriptedServer, type ScriptedServer } from './sse-server.js'

describe('startScriptedServer', () => {
  let server: ScriptedServer
  beforeAll(async () => {
    server = await startScriptedServer()
  })
  afterAll(() => server.close())
  beforeEach(() => {
    server.reset()
  })

  it('serves an SSE stream and records the request', async () => {
    server.enqueue({ events: [{ event: 'a', data: { n: 1 } }, { data: '[DONE]' }], headers: { 'x-request-id': 'req_1' } })
    const response = await fetch(`${server.url}/v1/things?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ hello: 'world' }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('x-request-id')).toBe('req_1')
    expect(await response.text()).toBe('event: a\ndata: {"n":1}\n\ndata: [DONE]\n\n')
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/things', url: '/v1/things?x=1', body: { hello: 'world' } })
    expect(server.requests[0]?.headers.authorization).toBe('Bearer k')
  })

  it('serves JSON errors with status and headers, in queue order, then the handler', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '1' }, json: { error: { message: 'slow down' } } })
    server.setHandler((request, index) => ({ json: { index, path: request.path } }))
    const first = await fetch(`${server.url}/a`)
    expect(first.status).toBe(429)
    expect(first.headers.get('retry-after')).toBe('1')
    expect(await first.json()).toEqual({ error: { message: 'slow down' } })
    const second = await fetch(`${server.url}/b`)
    expect(await second.json()).toEqual({ index: 1, path: '/b' })
  })

  it('answers unscripted requests with 599 and a hint', async () => {
    const response = await fetch(`${server.url}/nothing`)
    expect(response.status).toBe(599)
    expect(JSON.stringify(await response.json())).toContain('no scripted response')
  })

  it('matches queued responses by method and path', async () => {
    server.enqueue({ match: { path: '/two' }, json: 2 }, { match: { path: (path) => path === '/one' }, json: 1 })
    expect(await (await fetch(`${server.url}/one`)).json()).toBe(1)
    expect(await (await fetch(`${server.url}/two`)).json()).toBe(2)
    expect(server.pending).toBe(0)
  })

  it('destroys the connection mid-stream', async () => {
    server.enqueue({ events: [{ data: 'one' }], ending: 'destroy' })
    const response = await fetch(`${server.url}/cut`)
    await expect(response.text()).rejects.toThrow()
  })

  it('delays the first byte', async () => {
    server.enqueue({ firstByteDelayMs: 80, json: {} })
    const started = Date.now()
    await fetch(`${server.url}/slow`)
    expect(Date.now() - started).toBeGreaterThanOrEqual(70)
  })

  it('hangs until the client aborts, and records that the client closed', async () => {
    server.enqueue({ events: [{ data: 'first' }], ending: 'hang' })
    const controller = new AbortController()
    const response = await fetch(`${server.url}/hang`, { signal: controller.signal })
    const reader = response.body!.getReader()
    const { value } = await reader.read()
    expect(new TextDecoder().decode(value)).toBe('data: first\n\n')
    controller.abort()
    await expect(reader.read()).rejects.toThrow()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(server.requests[0]?.clientClosed).toBe(true)
  })

  it('waits for requests', async () => {
    server.setHandler(() => ({ json: {} }))
    const waiting = server.waitForRequests(2, 2_000)
    await fetch(`${server.url}/1`)
    await fetch(`${server.url}/2`)
    expect((await waiting).map((request) => request.path)).toEqual(['/1', '/2'])
  })

  it('encodes multi-line data as several data lines', () => {
    expect(encodeSseEvent({ event: 'x', id: '7', data: 'a\nb' })).toBe('event: x\nid: 7\ndata: a\ndata: b\n\n')
  })
})
