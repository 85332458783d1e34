// Access control: a start-up token (cookie or Bearer header), the Host header pinned to loopback names
// (DNS rebinding), and the Origin checked on every state-changing request (CSRF).
import { timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'

export const cookieName = 'spindle_playground'

export function sameToken(expected: string, given: string | undefined): boolean {
  if (!given) return false
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

export function accessControl(options: { token: string; allowedHosts: () => Set<string> }): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? ''
    if (!options.allowedHosts().has(host.toLowerCase())) {
      return c.json(
        {
          error: { code: 'bad_host', message: `[spindle/playground] requests must be addressed to ${[...options.allowedHosts()].join(' or ')}, not "${host}"` },
        },
        421,
      )
    }
    const url = new URL(c.req.url)
    const queryToken = url.searchParams.get('token') ?? undefined
    if (c.req.method === 'GET' && queryToken !== undefined && !url.pathname.startsWith('/api/')) {
      if (!sameToken(options.token, queryToken)) return c.text('Wrong token: open the URL printed when the playground started.', 401)
      setCookie(c, cookieName, options.token, { httpOnly: true, sameSite: 'Strict', path: '/' })
      url.searchParams.delete('token')
      // A path, never a host: `//evil.example/` (or `/\evil.example/`) would be read as another site by the browser.
      return c.redirect(`/${url.pathname.replace(/^[/\\]+/, '')}${url.search}`, 303)
    }
    const bearer = c.req.header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1]
    const cookie = getCookie(c, cookieName)
    if (!sameToken(options.token, bearer) && !sameToken(options.token, cookie)) {
      if (!url.pathname.startsWith('/api/')) return c.html(unauthorizedPage, 401)
      return c.json(
        {
          error: {
            code: 'unauthorized',
            message: '[spindle/playground] missing or wrong token: open the URL printed at start-up, or send "Authorization: Bearer <token>"',
          },
        },
        401,
      )
    }
    if (!['GET', 'HEAD', 'OPTIONS'].includes(c.req.method)) {
      const origin = c.req.header('origin')
      const expected = `${url.protocol}//${host}`
      // A browser always sends Origin on a cross-site POST; a cookie-authenticated request must carry ours.
      if ((origin !== undefined && origin !== expected) || (origin === undefined && !sameToken(options.token, bearer))) {
        return c.json({ error: { code: 'bad_origin', message: `[spindle/playground] refused: Origin "${origin ?? '(none)'}" is not ${expected}` } }, 403)
      }
    }
    await next()
  }
}

const unauthorizedPage = `<!doctype html><meta charset="utf-8"><title>Spindle playground</title>
<body style="font:15px system-ui;margin:4rem auto;max-width:36rem;color:#222">
<h1>Spindle playground</h1><p>This page needs the access token. Open the URL printed in the terminal where
<code>pnpm playground</code> started (<code>http://127.0.0.1:PORT/?token=…</code>).</p></body>`
