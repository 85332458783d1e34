// Child process for the cross-process tests: appends entries to one session through its own sqliteStores.
// Usage: append-worker.ts <path> <sessionId> <label> <count>; prints "seq <n>" after each committed append.
import { sqliteStores } from '../index.js'

const [path, sessionId, label, countText] = process.argv.slice(2)
const stores = sqliteStores({ path: path!, busyTimeoutMs: 10_000 })
const count = Number(countText)
for (let i = 0; i < count; i++) {
  const [entry] = await stores.sessions.append(sessionId!, [
    { kind: 'message', message: { role: 'user', content: `${label}-${i}` } },
  ])
  process.stdout.write(`seq ${entry!.seq}\n`)
}
stores.close()
