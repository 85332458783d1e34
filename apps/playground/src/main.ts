// `pnpm playground`: starts the server from the environment and prints the URL with its token.
import { configFromEnv } from './server/config.js'
import { startPlayground } from './server/create-playground.js'

const config = configFromEnv()
const playground = await startPlayground(config)
const models = playground.spindle.models.map((model) => model.id).join(', ')
console.log(`\n  Spindle playground — stores: ${playground.spindle.storeKind}, models: ${models}`)
console.log(`  Data: ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : config.dataDir}`)
console.log(`\n  Open ${playground.url}\n`)
const stop = async () => {
  await playground.close().catch(() => {})
  process.exit(0)
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
