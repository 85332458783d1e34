// Child process for the event bus test: publishes N events of one run (the third one large) from another process,
// then logs them as a run's step commit does (the large one reaches subscribers by reference, from the log).
import type { AgentEvent } from '@spindle/core'
import { PostgresEventBus } from '../postgres-event-bus.js'
import { postgresStores } from '../postgres-stores.js'

const [connectionString, schema, runId, count] = process.argv.slice(2) as [string, string, string, string]
const bus = new PostgresEventBus({ connectionString, schema })
await bus.ready()
const events: AgentEvent[] = []
for (let seq = 1; seq <= Number(count); seq++) {
  const delta = seq === 3 ? 'x'.repeat(20_000) : `from child ${seq}`
  const event: AgentEvent = { type: 'text.delta', runId, sessionId: 's', seq, timestamp: Date.now(), step: 1, delta }
  events.push(event)
  bus.publish(event)
}
await bus.flush()
const stores = postgresStores({ connectionString, schema })
await stores.runs.appendEvents(runId, events)
await stores.close()
await bus.close()
