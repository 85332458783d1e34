// A hand-written stdio "MCP server" that answers the handshake correctly, then misbehaves:
// malformed tool results, a non-JSON line, a response that never comes.
import { createInterface } from 'node:readline'

const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`)
const lines = createInterface({ input: process.stdin })

lines.on('line', (line) => {
  const request = JSON.parse(line) as { id?: number; method: string; params?: { name?: string } }
  if (request.id === undefined) return // notifications
  switch (request.method) {
    case 'initialize':
      send({ jsonrpc: '2.0', id: request.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'garbage', version: '0' } } })
      return
    case 'tools/list':
      send({
        jsonrpc: '2.0',
        id: request.id,
        result: {
          tools: [
            { name: 'not_array', description: 'content is a string', inputSchema: { type: 'object' } },
            { name: 'bad_item', description: 'content item without a type', inputSchema: { type: 'object' } },
            { name: 'noise', description: 'prints a non-JSON line first', inputSchema: { type: 'object' } },
            { name: 'silent', description: 'never answers', inputSchema: { type: 'object' } },
            { name: 'rpc_error', description: 'answers with a JSON-RPC error', inputSchema: { type: 'object' } },
          ],
        },
      })
      return
    case 'tools/call':
      switch (request.params?.name) {
        case 'not_array':
          send({ jsonrpc: '2.0', id: request.id, result: { content: 'this is not an array' } })
          return
        case 'bad_item':
          send({ jsonrpc: '2.0', id: request.id, result: { content: [{ nope: true }] } })
          return
        case 'noise':
          process.stdout.write('THIS IS NOT JSON-RPC\n')
          send({ jsonrpc: '2.0', id: request.id, result: { content: [{ type: 'text', text: 'after noise' }] } })
          return
        case 'silent':
          return
        case 'rpc_error':
          send({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: 'internal server meltdown' } })
          return
      }
      return
    default:
      send({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'method not found' } })
  }
})
