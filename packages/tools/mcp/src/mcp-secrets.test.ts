// Credentials given to an MCP transport (headers, stdio env) never come back in an error's message or cause,
// even when the server echoes them (a 401 body that quotes the token it refused).
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpScrubber } from './mcp-secrets.js'
import { mcpTools, McpToolError } from './index.js'

const token = 'mcp-gateway-token-7f3a9c2e1b'
const queryToken = 'query-secret-5d8e2a1f'

/** Every message in an error and its `cause` chain. */
function messages(error: unknown): string {
  const parts: string[] = []
  for (let current: unknown = error, depth = 0; current && depth < 10; current = (current as { cause?: unknown }).cause, depth++) {
    parts.push(current instanceof Error ? `${current.message} ${current.stack ?? ''}` : String(current))
  }
  return parts.join('\n')
}

describe('MCP credentials stay out of errors', () => {
  let server: http.Server
  let port = 0
  beforeAll(async () => {
    // Refuses every request, quoting the credentials it was sent (as some gateways do).
    server = http.createServer((request, response) => {
      response.statusCode = 401
      response.setHeader('content-type', 'text/plain')
      response.end(
        `invalid credentials: authorization=${String(request.headers.authorization)} x-api-key=${String(request.headers['x-api-key'])} url=${request.url}`,
      )
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it('scrubs credential header values and the query string echoed by a refusing HTTP server', async () => {
    const error = await mcpTools({
      name: 'gw',
      transport: {
        type: 'http',
        url: `http://127.0.0.1:${port}/mcp?token=${queryToken}`,
        headers: { authorization: `Bearer ${token}`, 'x-api-key': `${token}-2` },
      },
      connectTimeoutMs: 5000,
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(McpToolError.isInstance(error)).toBe(true)
    expect((error as McpToolError).code).toBe('mcp_connect_failed')
    const text = messages(error)
    expect(text).toContain('invalid credentials: authorization=[REDACTED] x-api-key=[REDACTED]')
    expect(text).not.toContain(token)
    expect(text).not.toContain(queryToken)
  })

  it('scrubs the secret-named env values of a stdio server, in the cause chain too, and keeps clean errors as they are', () => {
    const scrubber = createMcpScrubber({ type: 'stdio', command: 'server', env: { GITHUB_TOKEN: token, LOG_LEVEL: 'debug-verbose' } })
    const clean = new Error('spawn server ENOENT')
    expect(scrubber.error(clean)).toBe(clean)
    const leaky = new Error('request failed', { cause: new Error(`bad token ${token}; level debug-verbose`) })
    const scrubbed = scrubber.error(leaky) as Error
    expect(messages(scrubbed)).not.toContain(token)
    expect((scrubbed.cause as Error).message).toBe('bad token [REDACTED]; level debug-verbose')
  })
})
