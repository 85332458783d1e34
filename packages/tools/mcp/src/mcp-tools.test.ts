import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { ConfigurationError, Extensions, parseToolInput, SpindleError, type Tool, type ToolExecutionContext } from '@spindle/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildServer } from './__fixtures__/build-server.js'
import { mcpTools, McpToolError, prefixedToolName, type McpToolSet, type McpTransportOptions } from './index.js'

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
const packageDir = fileURLToPath(new URL('..', import.meta.url))

function stdio(fixture: string): Extract<McpTransportOptions, { type: 'stdio' }> {
  return {
    type: 'stdio',
    command: process.execPath,
    args: ['--import', 'tsx', fileURLToPath(new URL(`./__fixtures__/${fixture}`, import.meta.url))],
    cwd: packageDir,
    stderr: 'ignore',
  }
}

async function call(tool: Tool | undefined, args: unknown, signal?: AbortSignal): Promise<any> {
  expect(tool, 'the tool should exist').toBeDefined()
  const parsed = parseToolInput(tool!, args)
  if (!parsed.success) throw new Error(`invalid arguments: ${parsed.error}`)
  return tool!.execute(parsed.value, signal ? { ...context, signal } : context)
}

async function failure(promise: Promise<unknown>): Promise<McpToolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error, 'the call should have failed').toBeDefined()
  expect(SpindleError.isInstance(error)).toBe(true)
  expect((error as Error).message).toMatch(/^\[spindle\/tools-mcp\] /)
  return error as McpToolError
}

describe('mcpTools over stdio against a real MCP server', () => {
  let fx: McpToolSet
  beforeAll(async () => {
    fx = await mcpTools({ name: 'fx', transport: stdio('stdio-server.ts'), timeoutMs: 10_000 })
  }, 60_000)
  afterAll(async () => {
    await fx?.close()
  })

  it('lists the server tools under prefixed, provider-safe names', () => {
    expect(Object.keys(fx.tools).sort()).toEqual([
      'fx_add',
      'fx_bad_name_with_spaces_',
      'fx_crash',
      'fx_echo',
      'fx_fail',
      'fx_media',
      'fx_pid',
      'fx_slow',
      'fx_throws',
    ])
    expect(fx.serverToolNames.fx_bad_name_with_spaces_).toBe('bad.name with spaces!')
    expect(fx.serverInfo).toEqual({ name: 'fixture-server', version: '1.2.3' })
    expect(fx.tools.fx_echo.description).toBe('Echoes the text back')
    expect(fx.tools.fx_echo.id).toBe('mcp.fx.echo')
    const schema = (fx.tools.fx_echo.inputSchema as { jsonSchema: Record<string, unknown> }).jsonSchema
    expect(schema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })
  })

  it('forwards calls and maps text and structured content', async () => {
    expect(await call(fx.tools.fx_echo, { text: 'hi' })).toEqual({ content: [{ type: 'text', text: 'echo: hi' }] })
    expect(await call(fx.tools.fx_add, { a: 2, b: 3 })).toEqual({ content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } })
    expect(await call(fx.tools.fx_bad_name_with_spaces_, {})).toEqual({ content: [{ type: 'text', text: 'ok' }] })
  })

  it('maps image, resource and resource-link content to JSON', async () => {
    expect(await call(fx.tools.fx_media, {})).toEqual({
      content: [
        { type: 'text', text: 'here you go' },
        { type: 'image', mimeType: 'image/png', data: Buffer.from('png-bytes').toString('base64') },
        { type: 'resource', uri: 'file:///report.txt', mimeType: 'text/plain', text: 'report body' },
        { type: 'resource_link', uri: 'file:///other.txt', name: 'other' },
      ],
    })
  })

  it('returns arguments that do not match the JSON Schema to the model, without calling the server', () => {
    const wrongType = parseToolInput(fx.tools.fx_echo, { text: 5 })
    expect(wrongType).toEqual({ success: false, error: 'text must be string, got integer' })
    const missing = parseToolInput(fx.tools.fx_add, { a: 1 })
    expect(missing.success).toBe(false)
    expect((missing as { error: string }).error).toContain('b is required')
  })

  it('does not trust annotations: readOnlyHint still gets the operator default (external, approval, not idempotent)', () => {
    expect(fx.tools.fx_add).toMatchObject({ effect: 'external', needsApproval: true, idempotent: false })
    expect(fx.tools.fx_echo).toMatchObject({ effect: 'external', needsApproval: true, idempotent: false })
  })

  it('turns isError results and handler exceptions into clear tool errors', async () => {
    const reported = await failure(call(fx.tools.fx_fail, {}))
    expect(reported.code).toBe('mcp_tool_error')
    expect(reported.message).toContain('the tool "fail" on MCP server "fx" reported an error: it broke: disk full')
    const thrown = await failure(call(fx.tools.fx_throws, {}))
    expect(thrown.code).toBe('mcp_tool_error')
    expect(thrown.message).toContain('kaboom inside the tool')
  })

  it('stops a call past the time limit, and a cancelled call', async () => {
    const quick = await mcpTools({ name: 'q', transport: stdio('stdio-server.ts'), timeoutMs: 300, toolFilter: ['slow'] })
    try {
      expect(Object.keys(quick.tools)).toEqual(['q_slow'])
      expect((await failure(call(quick.tools.q_slow, { ms: 5000 }))).code).toBe('mcp_timeout')
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 50)
      expect((await failure(call(quick.tools.q_slow, { ms: 5000 }, controller.signal))).code).toBe('mcp_aborted')
    } finally {
      await quick.close()
    }
  }, 60_000)

  it('reports a server that dies mid-call, restarts it on the next call, and refuses calls after close()', async () => {
    const own = await mcpTools({ name: 'own', transport: stdio('stdio-server.ts'), toolFilter: ['crash', 'pid'] })
    const firstPid = (await call(own.tools.own_pid, {})).content[0].text
    const lost = await failure(call(own.tools.own_crash, {}))
    expect(lost.code).toBe('mcp_connection_lost')
    expect(lost.message).toContain('the connection to MCP server "own" was lost during the call to its tool "crash"')
    expect(lost.message).toContain('outcome is unknown')
    const secondPid = (await call(own.tools.own_pid, {})).content[0].text
    expect(secondPid).not.toBe(firstPid)
    expect(own.connections).toBe(2)
    await own.close()
    expect((await failure(call(own.tools.own_pid, {}))).code).toBe('mcp_closed')
  }, 60_000)
})

describe('a server whose tools change', () => {
  it('follows notifications/tools/list_changed, and lists the tools again after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spindle-mcp-'))
    const changing = await mcpTools({ name: 'ch', transport: { ...stdio('changing-server.ts'), env: { STARTS_FILE: join(dir, 'starts') } } })
    try {
      const held = changing.tools
      expect(Object.keys(changing.tools).sort()).toEqual(['ch_crash', 'ch_grow', 'ch_ping', 'ch_start_1'])
      await call(changing.tools.ch_grow, {})
      await expect.poll(() => Object.keys(changing.tools).sort(), { timeout: 5_000 }).toEqual(['ch_crash', 'ch_extra', 'ch_grow', 'ch_ping', 'ch_start_1'])
      expect(await call(changing.tools.ch_extra, {})).toEqual({ content: [{ type: 'text', text: 'extra works' }] })
      expect(changing.serverToolNames.ch_extra).toBe('extra')
      // Updated in place: an agent that holds the record sees the new tools too.
      expect(held).toBe(changing.tools)

      expect((await failure(call(changing.tools.ch_crash, {}))).code).toBe('mcp_connection_lost')
      expect(await call(changing.tools.ch_ping, {})).toEqual({ content: [{ type: 'text', text: 'pong' }] })
      // The restarted server is another process: its start tool, and not the tool added to the first one.
      await expect.poll(() => Object.keys(changing.tools).sort(), { timeout: 5_000 }).toEqual(['ch_crash', 'ch_grow', 'ch_ping', 'ch_start_2'])
      expect(changing.serverToolNames).not.toHaveProperty('ch_extra')
      expect(changing.connections).toBe(2)
    } finally {
      await changing.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('mcpTools as a plugin', () => {
  it('registers its tools in extensions.tools, follows tools/list_changed there, and extensions.dispose() stops the server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spindle-mcp-'))
    const marker = `plugin-${randomUUID()}`
    const transport = stdio('changing-server.ts')
    const changing = await mcpTools({ name: 'pl', transport: { ...transport, args: [...transport.args!, marker], env: { STARTS_FILE: join(dir, 'starts') } } })
    const extensions = new Extensions().use(changing)
    try {
      expect(extensions.tools.names().sort()).toEqual(['pl_crash', 'pl_grow', 'pl_ping', 'pl_start_1'])
      await call(extensions.tools.get('pl_grow'), {})
      await expect.poll(() => extensions.tools.names().sort(), { timeout: 5_000 }).toContain('pl_extra')
      expect(await call(extensions.tools.get('pl_extra'), {})).toEqual({ content: [{ type: 'text', text: 'extra works' }] })
      // After a restart the server lists other tools: the registry follows, dropping the ones that are gone.
      expect((await failure(call(extensions.tools.get('pl_crash'), {}))).code).toBe('mcp_connection_lost')
      await call(extensions.tools.get('pl_ping'), {})
      await expect.poll(() => extensions.tools.names().sort(), { timeout: 5_000 }).toEqual(['pl_crash', 'pl_grow', 'pl_ping', 'pl_start_2'])
      expect(childrenWith(marker)).toHaveLength(1)
    } finally {
      await extensions.dispose()
      rmSync(dir, { recursive: true, force: true })
    }
    await expect.poll(() => childrenWith(marker), { timeout: 5_000 }).toEqual([])
    expect((await failure(call(changing.tools.pl_ping, {}))).code).toBe('mcp_closed')
  }, 60_000)

  it('refuses to register over a tool of the same name, and registers none of its tools', async () => {
    const fx = await mcpTools({ name: 'dup', transport: stdio('stdio-server.ts'), toolFilter: ['echo', 'add'] })
    const extensions = new Extensions()
    extensions.tools.register(fx.tools.dup_echo!, 'dup_echo')
    try {
      expect(() => extensions.use(fx)).toThrow(/cannot register "dup_echo": already registered/)
      expect(extensions.tools.names()).toEqual(['dup_echo'])
    } finally {
      await fx.close()
    }
  }, 60_000)
})

describe('operator options decide effect, approval and exposure', () => {
  it('applies per-tool decisions and filters', async () => {
    const fx = await mcpTools({
      name: 'ops',
      transport: stdio('stdio-server.ts'),
      effect: (tool) => (tool.name === 'add' ? 'read' : 'irreversible'),
      idempotent: (tool) => tool.name === 'add',
      toolFilter: (tool) => ['add', 'echo'].includes(tool.name),
    })
    try {
      expect(Object.keys(fx.tools).sort()).toEqual(['ops_add', 'ops_echo'])
      expect(fx.tools.ops_add).toMatchObject({ effect: 'read', needsApproval: false, idempotent: true })
      expect(fx.tools.ops_echo).toMatchObject({ effect: 'irreversible', needsApproval: true, idempotent: false })
    } finally {
      await fx.close()
    }
  }, 60_000)
})

describe('malformed MCP servers', () => {
  let garbage: McpToolSet
  beforeAll(async () => {
    garbage = await mcpTools({ name: 'junk', transport: stdio('garbage-server.ts'), timeoutMs: 1500 })
  }, 60_000)
  afterAll(async () => {
    await garbage?.close()
  })

  it('refuses a result whose content is not an array', async () => {
    const error = await failure(call(garbage.tools.junk_not_array, {}))
    expect(error.code).toBe('mcp_protocol_error')
    expect(error.message).toContain('the tool "not_array" on MCP server "junk" failed')
  })

  it('refuses a content item without a type', async () => {
    expect((await failure(call(garbage.tools.junk_bad_item, {}))).code).toBe('mcp_protocol_error')
  })

  it('skips a non-JSON line on stdout and still reads the answer', async () => {
    expect(await call(garbage.tools.junk_noise, {})).toEqual({ content: [{ type: 'text', text: 'after noise' }] })
  })

  it('times out a call that is never answered', async () => {
    expect((await failure(call(garbage.tools.junk_silent, {}))).code).toBe('mcp_timeout')
  })

  it('passes a JSON-RPC error on with its message', async () => {
    const error = await failure(call(garbage.tools.junk_rpc_error, {}))
    expect(error.code).toBe('mcp_protocol_error')
    expect(error.message).toContain('internal server meltdown')
  })

  it('fails clearly when the server cannot be started or reached', async () => {
    const missing = await failure(
      mcpTools({ name: 'none', transport: { type: 'stdio', command: '/nonexistent/mcp-server', stderr: 'ignore' }, connectTimeoutMs: 5000 }),
    )
    expect(missing.code).toBe('mcp_connect_failed')
    expect(missing.message).toContain('could not connect to MCP server "none"')
    const refused = await failure(mcpTools({ name: 'down', transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' }, connectTimeoutMs: 5000 }))
    expect(refused.code).toBe('mcp_connect_failed')
  }, 30_000)
})

describe('mcpTools over streamable HTTP on 127.0.0.1', () => {
  let server: http.Server
  let port = 0
  const authorizations: Array<string | undefined> = []

  async function listen(): Promise<void> {
    server = http.createServer(async (request, response) => {
      authorizations.push(request.headers.authorization)
      const mcp = buildServer()
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      response.on('close', () => {
        void transport.close()
        void mcp.close()
      })
      await mcp.connect(transport)
      await transport.handleRequest(request, response)
    })
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  }

  async function stop(): Promise<void> {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  beforeAll(listen)
  afterAll(stop)

  it('lists and calls tools with the configured headers, survives the server going away and coming back', async () => {
    const remote = await mcpTools({
      name: 'web',
      transport: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { authorization: 'Bearer secret' } },
    })
    try {
      expect(Object.keys(remote.tools)).toContain('web_echo')
      expect(await call(remote.tools.web_echo, { text: 'over http' })).toEqual({ content: [{ type: 'text', text: 'echo: over http' }] })
      expect(authorizations.length).toBeGreaterThan(0)
      expect(authorizations.every((value) => value === 'Bearer secret')).toBe(true)
      expect(remote.tools.web_add).toMatchObject({ effect: 'external', needsApproval: true })

      await stop()
      // The server is down before the call: it was not made, and the error says so (not "lost during the call").
      for (const attempt of [1, 2]) {
        const down = await failure(call(remote.tools.web_echo, { text: 'x' }))
        expect(down.code, `attempt ${attempt}`).toBe('mcp_unavailable')
        expect(down.message).toContain('could not connect to MCP server "web"')
        expect(down.message).toMatch(attempt === 1 ? /it refuses connections, so the call most likely never reached it/ : /the call was not made/)
        expect(down.message).not.toContain('went away')
      }

      await listen()
      expect(await call(remote.tools.web_echo, { text: 'back' })).toEqual({ content: [{ type: 'text', text: 'echo: back' }] })
      expect(remote.connections).toBe(2)
    } finally {
      await remote.close()
    }
  }, 60_000)
})

/** Processes started by this test process whose command line holds `marker`. */
function childrenWith(marker: string): string[] {
  const listing = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
  return listing.split('\n').filter((line) => line.includes(marker))
}

describe('tools/list pagination', () => {
  it('follows nextCursor over every page', async () => {
    const paged = await mcpTools({ name: 'pg', transport: stdio('paging-server.ts') })
    try {
      expect(Object.keys(paged.tools)).toEqual(['pg_page_0', 'pg_page_1', 'pg_page_2'])
      expect(await call(paged.tools.pg_page_2, {})).toEqual({ content: [{ type: 'text', text: 'called page_2' }] })
    } finally {
      await paged.close()
    }
  }, 60_000)

  it('stops when a server repeats its cursor, and exposes a tool listed twice once', async () => {
    const looping = await mcpTools({ name: 'lp', transport: { ...stdio('paging-server.ts'), env: { PAGING: 'loop' } } })
    try {
      expect(Object.keys(looping.tools)).toEqual(['lp_again'])
      expect(looping.serverToolNames).toEqual({ lp_again: 'again' })
    } finally {
      await looping.close()
    }
  }, 60_000)
})

describe('closing', () => {
  it('close() during a restart stops the server being started: no process is left and the call fails as closed', async () => {
    const marker = `close-race-${randomUUID()}`
    const transport = stdio('stdio-server.ts')
    const own = await mcpTools({ name: 'cr', transport: { ...transport, args: [...transport.args!, marker] }, toolFilter: ['crash', 'pid'] })
    expect(childrenWith(marker)).toHaveLength(1)
    expect((await failure(call(own.tools.cr_crash, {}))).code).toBe('mcp_connection_lost')
    // The next call restarts the server; close() comes while it starts.
    const pending = call(own.tools.cr_pid, {}).then(
      () => 'answered',
      (error: McpToolError) => error.code,
    )
    await new Promise((resolve) => setTimeout(resolve, 50))
    await own.close()
    expect(await pending).toBe('mcp_closed')
    await expect.poll(() => childrenWith(marker), { timeout: 5_000 }).toEqual([])
  }, 60_000)

  it('close() ends the streamable HTTP session on the server (DELETE with its Mcp-Session-Id)', async () => {
    const sessions = new Map<string, StreamableHTTPServerTransport>()
    const deletes: Array<string | undefined> = []
    const server = http.createServer(async (request, response) => {
      if (request.method === 'DELETE') deletes.push(request.headers['mcp-session-id'] as string | undefined)
      const id = request.headers['mcp-session-id'] as string | undefined
      let transport = id ? sessions.get(id) : undefined
      if (!transport) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
        })
        created.onclose = () => void (created.sessionId && sessions.delete(created.sessionId))
        await buildServer().connect(created)
        transport = created
      }
      await transport.handleRequest(request, response)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
      const remote = await mcpTools({ name: 'sess', transport: { type: 'http', url }, toolFilter: ['echo'] })
      expect(await call(remote.tools.sess_echo, { text: 'hi' })).toEqual({ content: [{ type: 'text', text: 'echo: hi' }] })
      const [sessionId] = [...sessions.keys()]
      expect(sessionId).toBeDefined()
      await remote.close()
      expect(deletes).toEqual([sessionId])
      expect(sessions.size).toBe(0)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }, 60_000)
})

describe('options', () => {
  it('rejects a malformed transport or limit with a ConfigurationError that names the option', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', transport: { type: 'http', url: 'not a url' } }, /`transport.url`: the http transport needs an absolute `url`/],
      [{ name: 'x', transport: { type: 'http', url: 'ftp://127.0.0.1/mcp' } }, /must use http: or https:/],
      [{ name: 'x', transport: { type: 'http', url: 'https://user:hunter2-password@127.0.0.1/mcp' } }, /must not hold credentials; pass them in `headers`/],
      [{ name: 'x', transport: { type: 'stdio' } }, /`transport.command`/],
      [{ name: 'x', transport: { type: 'stdio', command: 'srv', args: 'not-an-array' } }, /`transport.args`/],
      [{ name: 'x', transport: { type: 'websocket', url: 'ws://x' } }, /`transport.type`: must be \{ type: "stdio"/],
      [{ name: 'x' }, /`transport`: must be \{ type: "stdio"/],
      [{ name: ' ', transport: { type: 'stdio', command: 'srv' } }, /`name`: mcpTools needs a server `name`/],
      [{ name: 'x', transport: { type: 'stdio', command: 'srv' }, connectTimeoutMs: -1 }, /`connectTimeoutMs`/],
      [{ name: 'x', transport: { type: 'stdio', command: 'srv' }, timeoutMs: Number.POSITIVE_INFINITY }, /`timeoutMs`/],
    ]
    for (const [options, message] of cases) {
      const error = await mcpTools(options as never).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(ConfigurationError.isInstance(error), JSON.stringify(options)).toBe(true)
      expect((error as Error).message).toMatch(/^\[spindle\/tools-mcp\] invalid mcpTools options: /)
      expect((error as Error).message, JSON.stringify(options)).toMatch(message)
      expect((error as Error).message).not.toContain('hunter2-password')
    }
  })

  it('keeps the query string of an HTTP URL (where tokens often go) out of error messages', async () => {
    const error = await failure(
      mcpTools({ name: 'q', transport: { type: 'http', url: 'http://127.0.0.1:9/mcp?api_key=SECRET-IN-QUERY-123' }, connectTimeoutMs: 5000 }),
    )
    expect(error.code).toBe('mcp_connect_failed')
    expect(error.message).toContain('http://127.0.0.1:9/mcp')
    expect(error.message).not.toContain('SECRET-IN-QUERY-123')
  }, 30_000)
})

describe('prefixedToolName', () => {
  it('sanitizes and caps names', () => {
    expect(prefixedToolName('git hub', 'search.issues')).toBe('git_hub_search_issues')
    expect(prefixedToolName('s', 'x'.repeat(100))).toHaveLength(64)
    expect(prefixedToolName('s', 'ünïcode')).toBe('s__n_code')
  })
})
