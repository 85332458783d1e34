// Child process for the background-checkpoint tests: appends to a session and never closes its stores, so the
// test can check that the checkpoint worker does not keep a process alive.
// Usage: unclosed-writer.ts <path> <count>
import { sqliteStores } from '../index.js'

const [path, countText] = process.argv.slice(2)
const stores = sqliteStores({ path: path!, checkpoint: 'background' })
await stores.sessions.createSession({ id: 's' })
for (let i = 0; i < Number(countText); i++) await stores.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: `m${i}` } }])
process.stdout.write(`background ${stores.checkpointStatus !== undefined}\n`)
