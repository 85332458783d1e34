// `pnpm playground`: starts the server from the environment and prints the URL with its token.
import { configFromEnv } from './server/config.js'
import { startPlayground } from './server/create-playground.js'

const config = configFromEnv()
const playground = await startPlayground(config)
const models = playground.spindle.models.map((model) => model.id).join(', ')
console.log(`\n  Spindle playground — stores: ${playground.spindle.storeKind}, models: ${models}`)
console.log(`  Data: ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : config.dataDir}`)
console.log(`\n  Open ${playground.url}\n`)
// Ctrl-C reaches this process twice (from the terminal, and forwarded by `pnpm playground`'s launcher): it closes once,
// and the second signal must not kill it mid-close.
let stopping: Promise<void> | undefined
const stop = () => {
  stopping ??= playground.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('[spindle/playground] closing failed:', error)
      process.exit(1)
    },
  )
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
