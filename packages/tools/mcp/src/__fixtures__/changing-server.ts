// A real MCP server (stdio) whose tools change: `grow` adds one during a call (the SDK then sends
// notifications/tools/list_changed), and each process start lists a tool named after its start number.
import { readFileSync, writeFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'

// The starts are counted in a file, so a restarted server differs from the one that died.
const startsFile = process.env.STARTS_FILE!
let starts = 0
try {
  starts = Number(readFileSync(startsFile, 'utf8'))
} catch {
  // First start: no file yet.
}
starts++
writeFileSync(startsFile, String(starts))

const server = new McpServer({ name: 'changing-server', version: '1.0.0' })
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
server.registerTool('ping', { description: 'Answers pong' }, async () => text('pong'))
server.registerTool(`start_${starts}`, { description: 'Names the start of this process' }, async () => text(String(starts)))
server.registerTool('grow', { description: 'Adds the tool `extra`' }, async () => {
  server.registerTool('extra', { description: 'Added at run time' }, async () => text('extra works'))
  return text('grown')
})
server.registerTool('crash', { description: 'Kills the server in the middle of the call' }, async () => {
  setTimeout(() => process.exit(3), 10)
  return new Promise(() => {})
})
await server.connect(new StdioServerTransport())
