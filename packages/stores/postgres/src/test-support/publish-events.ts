// Child process for the event bus test: publishes N events of one run (the third one large) from another process.
import { PostgresEventBus } from '../postgres-event-bus.js'
import { PostgresRunStore } from '../postgres-run-store.js'

const [connectionString, schema, runId, count] = process.argv.slice(2) as [string, string, string, string]
const bus = new PostgresEventBus({ connectionString, schema })
await bus.ready()
for (let seq = 1; seq <= Number(count); seq++) {
  const delta = seq === 3 ? 'x'.repeat(20_000) : `from child ${seq}`
  bus.publish({ type: 'text.delta', runId, sessionId: 's', seq, timestamp: Date.now(), step: 1, delta })
}
await bus.flush()
await bus.close()
void PostgresRunStore
