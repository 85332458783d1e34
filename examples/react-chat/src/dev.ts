// `pnpm --filter @spindle/example-react-chat dev`: the API server (TypeScript from source) and Vite's dev server,
// which serves the React app with hot reload and proxies /api to the API server.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createServer } from 'vite'
import { startChatServer } from './server/chat-server.js'

const exampleRoot = join(import.meta.dirname, '..')
mkdirSync(join(exampleRoot, '.data'), { recursive: true })
const api = await startChatServer({
  databasePath: process.env.DATABASE_PATH ?? join(exampleRoot, '.data', 'chat.db'),
  port: Number(process.env.API_PORT ?? 8787),
})
const vite = await createServer({
  configFile: join(exampleRoot, 'vite.config.ts'),
  root: join(exampleRoot, 'src', 'web'),
  server: { port: Number(process.env.PORT ?? 5173) },
})
await vite.listen()
console.log(`API on ${api.url}; the chat on ${vite.resolvedUrls?.local[0] ?? `http://localhost:${vite.config.server.port}/`}`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void Promise.all([vite.close(), api.close()]).finally(() => process.exit(0)))
}
