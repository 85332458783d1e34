// redisStores(): the six Spindle stores on Redis, as a `Stores` bundle that is also a plugin
// (`extensions.use(redisStores({ url }))`). Every key starts with `prefix`, so bundles never see each other's data.
import { ConfigurationError, type Extensions, type Plugin, type Stores } from '@spindle/core'
import { Redis } from 'ioredis'
import { RedisArtifactStore } from './redis-artifact-store.js'
import { RedisContext, toStoreError, withStoreErrors } from './redis-context.js'
import { RedisEmbeddingStore } from './redis-embedding-store.js'
import { RedisExecutionStore } from './redis-execution-store.js'
import { RedisRunStore } from './redis-run-store.js'
import { RedisSessionStore } from './redis-session-store.js'
import { RedisSnapshotStore } from './redis-snapshot-store.js'

export interface RedisStoresOptions {
  /** A `redis://` URL. Default `redis://127.0.0.1:6379`. Ignored when `client` is given. */
  url?: string
  /** An ioredis client to use instead of opening one; `close()` leaves it open. */
  client?: Redis
  /** Prefix of every key. Default `spindle`. Give each application (or test) its own. */
  prefix?: string
}

export class RedisStores implements Stores, Plugin {
  readonly sessions: RedisSessionStore
  readonly runs: RedisRunStore
  readonly executions: RedisExecutionStore
  readonly snapshots: RedisSnapshotStore
  readonly embeddings: RedisEmbeddingStore
  readonly artifacts: RedisArtifactStore
  readonly #context: RedisContext
  readonly #ownsClient: boolean

  constructor(options: RedisStoresOptions = {}) {
    const prefix = options.prefix ?? 'spindle'
    if (!/^[\w.:-]+$/.test(prefix)) throw new ConfigurationError(`[spindle-store-redis] prefix "${prefix}" must be letters, digits, "_", "-", "." or ":"`)
    this.#ownsClient = options.client === undefined
    const client = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 })
    this.#context = new RedisContext(client, prefix)
    this.sessions = withStoreErrors(new RedisSessionStore(this.#context))
    this.runs = withStoreErrors(new RedisRunStore(this.#context))
    this.executions = withStoreErrors(new RedisExecutionStore(this.#context))
    this.snapshots = withStoreErrors(new RedisSnapshotStore(this.#context))
    this.embeddings = withStoreErrors(new RedisEmbeddingStore(this.#context))
    this.artifacts = withStoreErrors(new RedisArtifactStore(this.#context))
  }

  // Getters, not fields: the own enumerable properties stay exactly the six stores.
  get name(): string {
    return 'store-redis'
  }

  get prefix(): string {
    return this.#context.prefix
  }

  get client(): Redis {
    return this.#context.redis
  }

  setup(extensions: Extensions): void {
    const { sessions, runs, executions, snapshots, embeddings, artifacts } = this
    extensions.setStores({ sessions, runs, executions, snapshots, embeddings, artifacts })
  }

  /** Deletes every key under this bundle's prefix (tests, or wiping a tenant). */
  async clear(): Promise<void> {
    try {
      const stream = this.client.scanStream({ match: `${this.prefix}:*`, count: 500 })
      for await (const keys of stream as AsyncIterable<string[]>) if (keys.length > 0) await this.client.unlink(...keys)
    } catch (error) {
      throw toStoreError(error)
    }
  }

  async close(): Promise<void> {
    if (this.#ownsClient && this.client.status !== 'end') await this.client.quit()
  }

  dispose(): Promise<void> {
    return this.close()
  }
}

/**
 * @example
 * const extensions = new Extensions().use(redisStores({ url: 'redis://127.0.0.1:6379', prefix: 'my-app' }))
 */
export function redisStores(options: RedisStoresOptions = {}): RedisStores {
  return new RedisStores(options)
}
