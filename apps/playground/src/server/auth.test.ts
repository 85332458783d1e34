// Access control against a real server: token (cookie or Bearer), Host pinning, Origin on state changes, no key leaks.
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'

let playground: TestPlayground

beforeAll(async () => {
  playground = await startTestPlayground({ openai: { apiKey: 'sk-test-never-leaks-123', model: 'gpt-test' } })
})
afterAll(() => playground.stop())

describe('access control', () => {
  it('refuses the API without the token, and with a wrong one', async () => {
    const anonymous = await fetch(`${playground.origin}/api/sessions`)
    expect(anonymous.status).toBe(401)
    expect((await anonymous.json()).error.message).toMatch(/open the URL printed at start-up/)
    const wrong = await fetch(`${playground.origin}/api/sessions`, { headers: { authorization: 'Bearer nope' } })
    expect(wrong.status).toBe(401)
    const page = await fetch(`${playground.origin}/`)
    expect(page.status).toBe(401)
    expect(await page.text()).toContain('needs the access token')
  })

  it('the start-up URL sets an HttpOnly SameSite=Strict cookie that then authenticates', async () => {
    const response = await fetch(playground.url, { redirect: 'manual' })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/')
    const cookie = response.headers.get('set-cookie')!
    expect(cookie).toMatch(/HttpOnly/i)
    expect(cookie).toMatch(/SameSite=Strict/i)
    const config = await fetch(`${playground.origin}/api/config`, { headers: { cookie: cookie.split(';')[0]! } })
    expect(config.status).toBe(200)
    const wrongToken = await fetch(`${playground.origin}/?token=bad`, { redirect: 'manual' })
    expect(wrongToken.status).toBe(401)
  })

  it('the start-up URL redirects only to a path of this origin, never to another host (//evil.example/)', async () => {
    const location = async (path: string) => {
      const response = await fetch(`${playground.origin}${path}`, { redirect: 'manual' })
      expect(response.status).toBe(303)
      return response.headers.get('location')
    }
    expect(await location(`//evil.example/?token=${playground.token}`)).toBe('/evil.example/')
    expect(await location(`///evil.example/page?token=${playground.token}&x=1`)).toBe('/evil.example/page?x=1')
    expect(await location(`/s/ses_1?token=${playground.token}`)).toBe('/s/ses_1')
    expect(new URL((await location(`//evil.example?token=${playground.token}`))!, playground.origin).origin).toBe(playground.origin)
  })

  it('a cookie-authenticated state change needs our Origin', async () => {
    const cookie = `spindle_playground=${playground.token}`
    const post = (headers: Record<string, string>) =>
      fetch(`${playground.origin}/api/sessions`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...headers }, body: '{}' })
    const evil = await post({ origin: 'http://evil.example' })
    expect(evil.status).toBe(403)
    expect((await evil.json()).error.code).toBe('bad_origin')
    expect((await post({})).status).toBe(403)
    expect((await post({ origin: playground.origin })).status).toBe(201)
    // A Bearer client (curl, scripts) may omit Origin, but a wrong one is still refused.
    expect((await playground.call('POST', '/api/sessions', {}, { origin: '' })).status).toBe(403)
    const bearerOnly = await fetch(`${playground.origin}/api/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${playground.token}` },
      body: '{}',
    })
    expect(bearerOnly.status).toBe(201)
  })

  it('requests addressed to another host name are refused (DNS rebinding)', async () => {
    // fetch() cannot set Host; node:http can, like a rebinding browser would.
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: playground.port,
          path: '/api/config',
          headers: { host: `evil.example:${playground.port}`, authorization: `Bearer ${playground.token}` },
        },
        (response) => {
          let text = ''
          response.on('data', (chunk) => (text += chunk))
          response.on('end', () => resolve({ status: response.statusCode!, body: text }))
        },
      )
      request.on('error', reject)
      request.end()
    })
    expect(status).toBe(421)
    expect(JSON.parse(body).error.code).toBe('bad_host')
  })

  it('offers the configured providers without ever sending their keys', async () => {
    const { status, body } = await playground.call('GET', '/api/config')
    expect(status).toBe(200)
    expect(body.models.map((model: { id: string }) => model.id)).toEqual(['demo:scripted', 'openai:gpt-test'])
    expect(body.models[0].label).toBe('Demo model — scripted, offline')
    expect(JSON.stringify(body)).not.toContain('sk-test')
  })
})
