// `pnpm --filter @spindle/example-react-chat start`: serves the built app and the API on one port.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startChatServer } from './server/chat-server.js'

const exampleRoot = join(import.meta.dirname, '..')
mkdirSync(join(exampleRoot, '.data'), { recursive: true })
const server = await startChatServer({
  databasePath: process.env.DATABASE_PATH ?? join(exampleRoot, '.data', 'chat.db'),
  webRoot: join(exampleRoot, 'dist', 'web'),
  port: Number(process.env.PORT ?? 8787),
})
console.log(`Chat on ${server.url} (delete examples/react-chat/.data/ to start over)`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void server.close().finally(() => process.exit(0)))
}
