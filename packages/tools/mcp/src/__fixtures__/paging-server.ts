// A hand-written stdio MCP server that pages tools/list with opaque cursors. PAGING=loop makes it answer every
// page with the same tool and the same nextCursor for ever, as a buggy server would.
import { createInterface } from 'node:readline'

const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`)
const loop = process.env.PAGING === 'loop'

createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line) as { id?: number; method: string; params?: { cursor?: string; name?: string } }
  if (request.id === undefined) return
  switch (request.method) {
    case 'initialize':
      send({ jsonrpc: '2.0', id: request.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'paging', version: '0' } } })
      return
    case 'tools/list': {
      if (loop) {
        send({ jsonrpc: '2.0', id: request.id, result: { tools: [{ name: 'again', inputSchema: { type: 'object' } }], nextCursor: 'the-same-cursor' } })
        return
      }
      const page = request.params?.cursor === undefined ? 0 : Number(Buffer.from(request.params.cursor, 'base64url').toString())
      const result: Record<string, unknown> = { tools: [{ name: `page_${page}`, inputSchema: { type: 'object' } }] }
      if (page < 2) result.nextCursor = Buffer.from(String(page + 1)).toString('base64url')
      send({ jsonrpc: '2.0', id: request.id, result })
      return
    }
    case 'tools/call':
      send({ jsonrpc: '2.0', id: request.id, result: { content: [{ type: 'text', text: `called ${request.params?.name}` }] } })
      return
    default:
      send({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'method not found' } })
  }
})
