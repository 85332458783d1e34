// A tiny real MCP server (the SDK's McpServer) used by the tests, over stdio and streamable HTTP.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'

export function buildServer(): McpServer {
  const server = new McpServer({ name: 'fixture-server', version: '1.2.3' })
  server.registerTool(
    'echo',
    { description: 'Echoes the text back', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  )
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
      // Claims to be harmless: the client must not believe it.
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  )
  server.registerTool('fail', { description: 'Reports a failure' }, async () => ({ isError: true, content: [{ type: 'text', text: 'it broke: disk full' }] }))
  server.registerTool('throws', { description: 'Throws inside the handler' }, async () => {
    throw new Error('kaboom inside the tool')
  })
  server.registerTool('media', { description: 'Returns an image and a resource' }, async () => ({
    content: [
      { type: 'text', text: 'here you go' },
      { type: 'image', mimeType: 'image/png', data: Buffer.from('png-bytes').toString('base64') },
      { type: 'resource', resource: { uri: 'file:///report.txt', mimeType: 'text/plain', text: 'report body' } },
      { type: 'resource_link', uri: 'file:///other.txt', name: 'other' },
    ],
  }))
  server.registerTool('pid', { description: 'Returns the server process id' }, async () => ({ content: [{ type: 'text', text: String(process.pid) }] }))
  server.registerTool('crash', { description: 'Kills the server in the middle of the call' }, async () => {
    setTimeout(() => process.exit(3), 10)
    return new Promise(() => {})
  })
  server.registerTool('slow', { description: 'Waits', inputSchema: { ms: z.number() } }, async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms))
    return { content: [{ type: 'text', text: 'done' }] }
  })
  server.registerTool('bad.name with spaces!', { description: 'A tool whose name is not provider-safe' }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
  return server
}
