// One HTTP exchange connected to an address that was already checked: the socket's lookup
// returns the vetted IP, while Host and TLS SNI keep the original name (no DNS rebinding).
import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction as NetLookupFunction } from 'node:net'
import type { VettedTarget } from './url-guard.js'

export interface PinnedRequest {
  target: VettedTarget
  method: string
  headers: Record<string, string>
  body?: Buffer
  signal: AbortSignal
  /** Extra trusted CA certificates for https (PEM). */
  ca?: string | Buffer | Array<string | Buffer>
}

/** Resolves every lookup to the vetted address, whatever name is asked. */
function pinnedLookup(address: string, family: 4 | 6): NetLookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const done = typeof options === 'function' ? (options as (...args: unknown[]) => void) : callback
    if (typeof options === 'object' && options?.all) done(null, [{ address, family }])
    else done(null, address, family)
  }) as unknown as NetLookupFunction
}

export function sendPinned(request: PinnedRequest): Promise<IncomingMessage> {
  const { target } = request
  const secure = target.url.protocol === 'https:'
  const client = secure ? https : http
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = client.request({
      protocol: target.url.protocol,
      hostname: target.hostname,
      port: target.url.port || (secure ? 443 : 80),
      path: `${target.url.pathname}${target.url.search}`,
      method: request.method,
      headers: request.headers,
      agent: false,
      lookup: pinnedLookup(target.address, target.family),
      ...(secure && !isIP(target.hostname) ? { servername: target.hostname } : {}),
      ...(secure && request.ca ? { ca: request.ca } : {}),
      signal: request.signal,
    })
    outgoing.once('response', resolve)
    outgoing.once('error', reject)
    outgoing.end(request.body)
  })
}
