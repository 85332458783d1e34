// Runs the fixture MCP server over stdio (spawned by the tests with `node --import tsx`).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { buildServer } from './build-server.js'

await buildServer().connect(new StdioServerTransport())
