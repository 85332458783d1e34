// mcpTools against the reference MCP server `@modelcontextprotocol/server-everything` (installed from npm), over
// stdio and Streamable HTTP on 127.0.0.1: task-based tools, progress, a server killed mid-call, a restarted server
// that no longer knows the session.
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { parseToolInput, SpindleError, type Tool, type ToolExecutionContext } from '@spindle/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mcpTools, type McpToolError, type McpToolProgress, type McpToolSet } from './index.js'

const everything = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url))
const context = {
  runId: 'run-1',
  sessionId: 's',
  step: 0,
  callId: 'call-1',
  toolName: 't',
  idempotencyKey: 'k',
  signal: new AbortController().signal,
  runtime: undefined,
} as unknown as ToolExecutionContext

async function call(tool: Tool | undefined, args: unknown): Promise<any> {
  expect(tool, 'the tool should exist').toBeDefined()
  const parsed = parseToolInput(tool!, args)
  if (!parsed.success) throw new Error(parsed.error)
  return tool!.execute(parsed.value, context)
}

async function failure(promise: Promise<unknown>): Promise<McpToolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(SpindleError.isInstance(error), String(error)).toBe(true)
  return error as McpToolError
}

describe('server-everything over stdio', () => {
  let server: McpToolSet
  const progress: McpToolProgress[] = []
  beforeAll(async () => {
    server = await mcpTools({
      name: 'ev',
      transport: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' },
      timeoutMs: 700,
      onProgress: (update) => progress.push(update),
    })
  }, 30_000)
  afterAll(() => server?.close())

  it('calls a tool whose execution.taskSupport is "required" as a task, reporting its status as progress', async () => {
    expect(server.tools['ev_simulate-research-query']).toBeDefined()
    progress.length = 0
    const result = await call(server.tools['ev_simulate-research-query'], { topic: 'otters' })
    expect(result.content[0].type).toBe('text')
    expect(result.content[0].text).toContain('# Research Report: otters')
    const statuses = progress.filter((update) => update.toolName === 'ev_simulate-research-query')
    expect(statuses.length).toBeGreaterThan(0)
    expect(statuses[0]).toMatchObject({ server: 'ev', tool: 'simulate-research-query', taskStatus: 'working', runId: 'run-1', callId: 'call-1' })
    expect(statuses.some((update) => update.message?.includes('Gathering sources'))).toBe(true)
  }, 20_000)

  it('sends a progress token, reports progress, and lets progress extend the time limit (timeoutMs 700, call 1.5 s)', async () => {
    progress.length = 0
    const result = await call(server.tools['ev_trigger-long-running-operation'], { duration: 1.5, steps: 5 })
    expect(result.content[0].text).toContain('Long running operation completed')
    // The fifth report and the answer leave the server together: the answer may end the call first.
    expect(progress.map(({ progress: done, total }) => [done, total]).slice(0, 4)).toEqual([
      [1, 5],
      [2, 5],
      [3, 5],
      [4, 5],
    ])
    expect(progress[0]).toMatchObject({ server: 'ev', tool: 'trigger-long-running-operation', toolName: 'ev_trigger-long-running-operation' })
  }, 20_000)

  it('stops a call that keeps reporting progress at maxTotalTimeoutMs, and one without progress at timeoutMs', async () => {
    const bounded = await mcpTools({
      name: 'bd',
      transport: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' },
      timeoutMs: 700,
      maxTotalTimeoutMs: 1000,
      toolFilter: ['trigger-long-running-operation'],
    })
    try {
      const started = Date.now()
      const total = await failure(call(bounded.tools['bd_trigger-long-running-operation'], { duration: 5, steps: 25 }))
      expect(total.code).toBe('mcp_timeout')
      expect(total.message).toContain('did not finish within the total limit of 1000 ms')
      expect(Date.now() - started).toBeLessThan(2500)
      const idle = await failure(call(bounded.tools['bd_trigger-long-running-operation'], { duration: 2, steps: 1 }))
      expect(idle.code).toBe('mcp_timeout')
      expect(idle.message).toContain('sent neither an answer nor progress for 700 ms')
    } finally {
      await bounded.close()
    }
  }, 20_000)

  it('says what is wrong with arguments once, without repeating the tool name', () => {
    const parsed = parseToolInput(server.tools['ev_get-sum']!, { a: 'one' })
    expect(parsed).toEqual({ success: false, error: 'b is required; a must be number, got string' })
  })
})

/** A free loopback port (listened on, then released). */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

/** Starts server-everything's Streamable HTTP transport on `port` and waits until it listens. */
async function startHttp(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [everything, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] })
  await new Promise<void>((resolve, reject) => {
    let output = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('listening on port')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}: ${output}`)))
  })
  child.stderr!.resume()
  return child
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

describe('server-everything over Streamable HTTP on 127.0.0.1', () => {
  let port = 0
  let child: ChildProcess | undefined
  beforeAll(async () => {
    port = await freePort()
  })
  afterAll(async () => {
    if (child) await kill(child)
  })

  it('ends a call promptly with mcp_connection_lost when the server is killed mid-call; a call to the server while it is down "could not connect"', async () => {
    child = await startHttp(port)
    const remote = await mcpTools({
      name: 'hv',
      transport: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
      toolFilter: ['echo', 'trigger-long-running-operation'],
    })
    try {
      const started = Date.now()
      const pending = failure(call(remote.tools['hv_trigger-long-running-operation'], { duration: 30, steps: 30 }))
      await new Promise((resolve) => setTimeout(resolve, 1500))
      await kill(child)
      const lost = await pending
      expect(lost.code).toBe('mcp_connection_lost')
      expect(Date.now() - started).toBeLessThan(5000)
      expect(lost.message).toBe(
        '[spindle/tools-mcp] the connection to MCP server "hv" was lost during the call to its tool "trigger-long-running-operation" (the server may have crashed), so the outcome is unknown; the server will be restarted on the next call',
      )

      const down = await failure(call(remote.tools.hv_echo, { message: 'x' }))
      expect(down.code).toBe('mcp_unavailable')
      expect(down.message).toMatch(
        /^\[spindle\/tools-mcp\] could not connect to MCP server "hv" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) to restart it: .*; the call was not made$/,
      )
      expect(down.message).not.toContain('went away')
      expect(down.message.match(/spindle\/tools-mcp/g)).toHaveLength(1)

      child = await startHttp(port)
      expect(await call(remote.tools.hv_echo, { message: 'back' })).toEqual({ content: [{ type: 'text', text: 'Echo: back' }] })
    } finally {
      await remote.close()
    }
  }, 30_000)

  it('re-initializes and retries once when a server restarted on the same port rejects the old session id (400)', async () => {
    if (child) await kill(child)
    child = await startHttp(port)
    const remote = await mcpTools({ name: 'rs', transport: { type: 'http', url: `http://127.0.0.1:${port}/mcp` }, toolFilter: ['echo'] })
    try {
      expect(await call(remote.tools.rs_echo, { message: 'one' })).toEqual({ content: [{ type: 'text', text: 'Echo: one' }] })
      expect(remote.connections).toBe(1)
      await kill(child)
      child = await startHttp(port)
      // The new process has no session: it answers the old id with 400 "No valid session ID provided".
      expect(await call(remote.tools.rs_echo, { message: 'two' })).toEqual({ content: [{ type: 'text', text: 'Echo: two' }] })
      expect(remote.connections).toBe(2)
      expect(await call(remote.tools.rs_echo, { message: 'three' })).toEqual({ content: [{ type: 'text', text: 'Echo: three' }] })
    } finally {
      await remote.close()
    }
  }, 30_000)
})
