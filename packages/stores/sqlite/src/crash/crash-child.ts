// The crash test's child process: recovers the runs a killed predecessor left `running`, then works through
// the remaining tasks (two at a time) on one SQLite file. At the planned freeze point it announces `PAUSE <point>`
// on stdout and blocks synchronously, so the parent's SIGKILL lands exactly there.
// Usage: node --conditions=@spindle/source --import tsx crash-child.ts '<json ChildConfig>'
import { writeSync } from 'node:fs'
import {
  AgentRuntime,
  Extensions,
  InProcessSessionGate,
  type BatchedStores,
  type LanguageModel,
  type SessionGate,
  type StoreBatch,
  type Stores,
  type StoreWrite,
} from '@spindle/core'
import { findStoreBatch } from '@spindle/core/plugin-kit'
import { sqliteStores } from '../index.js'
import { crashAgent, crashTask } from './crash-workload.js'
import { type ChildConfig, type FreezePoint, type StoreFreezePoint, storeFreezePoints } from './freeze-points.js'

const config = JSON.parse(process.argv[2]!) as ChildConfig
const counts = new Map<FreezePoint, number>()

function reached(point: FreezePoint): void {
  const count = (counts.get(point) ?? 0) + 1
  counts.set(point, count)
  if (config.freeze?.point !== point || config.freeze.occurrence !== count) return
  announce(`PAUSE ${point}`)
  // Frozen: nothing else in this process runs until the parent's SIGKILL (or, if it never comes, 20 s).
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20_000)
  announce(`UNFROZEN ${point}`)
}

function announce(line: string): void {
  const buffer = Buffer.from(`${line}\n`)
  for (let written = 0; written < buffer.length;) {
    try {
      written += writeSync(1, buffer, written)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
    }
  }
}

/** The store method whose freeze points a write of a batch reaches (the method the write stands for). */
const methodOfWrite: Record<StoreWrite['type'], { store: StoreFreezePoint['store']; method: string }> = {
  'session.append': { store: 'sessions', method: 'append' },
  'execution.start': { store: 'executions', method: 'start' },
  'execution.finish': { store: 'executions', method: 'finish' },
  'run.events': { store: 'runs', method: 'appendEvents' },
  'run.update': { store: 'runs', method: 'updateRun' },
  'snapshot.save': { store: 'snapshots', method: 'save' },
}

/** Batches written, and writes in them: announced at the end, so the report shows the batch path ran. */
const batchFigures = { batches: 0, writes: 0 }

/**
 * Wraps each store method named in `storeFreezePoints` so that a freeze can happen just before or after it.
 * The stores' batch is wrapped too, with the proxies as its `stores` (the kernel batches only when
 * `findStoreBatch` sees the registered instances): a batch reaches the 'before' points of all its writes, commits,
 * then reaches their 'after' points — a kill lands before or after the whole transaction, as it would in production.
 */
function withFreezePoints(stores: Stores): Stores {
  const wrapped: Record<string, unknown> = {}
  const inner = findStoreBatch(stores)
  const batch: StoreBatch | undefined = inner && {
    specificationVersion: 'v1',
    stores: wrapped as unknown as BatchedStores,
    async write(writes) {
      const points = writes.map((write) =>
        storeFreezePoints.filter((entry) => entry.store === methodOfWrite[write.type].store && entry.method === methodOfWrite[write.type].method),
      )
      for (const entry of points.flat()) if (entry.when === 'before') reached(entry.point)
      const results = await inner.write(writes)
      batchFigures.batches++
      batchFigures.writes += writes.length
      for (const entry of points.flat()) if (entry.when === 'after') reached(entry.point)
      return results
    },
  }
  for (const [name, store] of Object.entries(stores) as Array<[string, object]>) {
    wrapped[name] = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'batch' && batch !== undefined) return batch
        const value = Reflect.get(target, property, receiver)
        if (typeof value !== 'function') return value
        const points = storeFreezePoints.filter((entry) => entry.store === name && entry.method === property)
        if (!points.length) return value.bind(target)
        return async (...args: unknown[]) => {
          for (const entry of points) if (entry.when === 'before') reached(entry.point)
          const result = await value.apply(target, args)
          for (const entry of points) if (entry.when === 'after') reached(entry.point)
          return result
        }
      },
    })
  }
  const result = wrapped as unknown as Stores
  if (inner !== undefined && findStoreBatch(result) !== batch)
    throw new Error('crash child: the wrapped stores must expose the wrapped batch, or the kernel would not batch')
  return result
}

/** Freezes after the consumer has taken a text delta: the model is mid-stream. */
function withStreamFreeze(model: LanguageModel): LanguageModel {
  return {
    ...model,
    capabilities: model.capabilities,
    async *stream(request, options) {
      for await (const part of model.stream(request, options)) {
        yield part
        if (part.type === 'text-delta') reached('model-stream')
      }
    },
  }
}

/**
 * The default in-process gate numbers its fencing tokens from 1 in every process, below the fence the SQLite
 * store kept from the killed process, so every append after a restart fails with StaleFenceError. Until the
 * gate itself starts above earlier processes' tokens, offset them by this process's start time (microseconds).
 */
function restartSafeGate(): SessionGate {
  const inner = new InProcessSessionGate()
  const epoch = Date.now() * 1000
  return {
    specificationVersion: 'v1',
    acquire: async (sessionId, options) => {
      const lease = await inner.acquire(sessionId, options)
      return { sessionId: lease.sessionId, owner: lease.owner, token: epoch + lease.token, signal: lease.signal, release: () => lease.release() }
    },
    state: async (sessionId) => {
      const state = await inner.state(sessionId)
      return { ...state, token: state.token === undefined ? undefined : epoch + state.token }
    },
  }
}

const stores = sqliteStores({ path: config.databasePath, busyTimeoutMs: 10_000 })
const extensions = new Extensions().setStores(withFreezePoints(stores))
if (!config.defaultGate) extensions.gate = restartSafeGate()
// With the stable owner id, the restarted worker is the same worker and recover() takes its runs back at once;
// with a new one, recover() must wait for the dead owner's leases to expire (leaseMs).
const runtime = new AgentRuntime(extensions, { maxSteps: 10, leaseMs: config.leaseMs }, { ownerId: config.ownerId })
const agent = crashAgent(config.seed, config.ledgerPath, { afterSideEffect: () => reached('tool-side-effect') })
agent.model = withStreamFreeze(agent.model as LanguageModel)

const progress = (async () => {
  // What a live subscriber saw, for the parent's record of every attempt's deliveries (checked against the log).
  for await (const event of runtime.subscribe({ capacity: 4096 })) {
    if (event.type === 'lagged') announce(`LAGGED ${event.missed}`)
    else announce(`EVENT ${JSON.stringify({ runId: event.runId, seq: event.seq, type: event.type, callId: 'callId' in event ? event.callId : undefined })}`)
  }
})()
void progress

announce('READY')
let recovered = 0
for (const giveUp = Date.now() + config.leaseMs * 5; ;) {
  recovered += (await (await runtime.recover({ agents: [agent] })).done).resumed.length
  if (!(await runtime.runs.listRuns({ status: 'running', limit: 1 })).length) break
  if (Date.now() > giveUp) throw new Error('runs are still running after recover() and their leases expired')
  await new Promise((resolve) => setTimeout(resolve, 100))
}
announce(`RECOVERED ${recovered}`)

let next = 0
const lane = async () => {
  while (next < config.runs) {
    const task = crashTask(config.seed, next++)
    const existing = await runtime.runs.findRunByIdempotencyKey(task.sessionId, task.idempotencyKey)
    if (existing) {
      if (existing.status === 'running') throw new Error(`task #${task.index}: run ${existing.id} is still running after recover()`)
      continue
    }
    const output = await runtime.run({ agent, sessionId: task.sessionId, idempotencyKey: task.idempotencyKey, input: task.input })
    announce(`RUN ${task.index} ${output.finishReason}`)
  }
}
await Promise.all([lane(), lane()])
announce(`BATCHES ${batchFigures.batches} ${batchFigures.writes}`)
announce('DONE')
await extensions.dispose()
stores.close()
process.exit(0)
