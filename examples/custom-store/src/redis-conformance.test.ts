// Every store conformance suite of @spindle/testing against a real Redis, one key prefix per bundle.
import { randomUUID } from 'node:crypto'
import type { Stores } from '@spindle/core'
import { describeStores } from '@spindle/testing'
import { Redis } from 'ioredis'
import { redisStores, type RedisStores } from './index.js'

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const probe = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null })
const reachable = await probe
  .connect()
  .then(() => probe.ping())
  .then(
    () => true,
    () => false,
  )
probe.disconnect()
if (!reachable && process.env.CI === 'true') throw new Error(`[spindle-store-redis] Redis is required in CI but is not reachable at ${url}`)
if (!reachable) console.warn(`[spindle-store-redis] Redis is not reachable at ${url}: skipping its conformance suites (start redis-server to run them)`)
const unreachable = `Redis is not reachable at ${url}`

describeStores('spindle-store-redis', {
  create: () => redisStores({ url, prefix: `spindle-test:${randomUUID()}` }),
  createSecondConnection: async (stores: Stores) => redisStores({ url, prefix: (stores as RedisStores).prefix }),
  cleanup: async (stores: Stores) => {
    await (stores as RedisStores).clear()
    await (stores as RedisStores).close()
  },
  ...(!reachable && { skip: Object.fromEntries(['session', 'run', 'execution', 'snapshot', 'embedding', 'artifact'].map((kind) => [kind, unreachable])) }),
})
