// Public entry of spindle-store-redis: an example third-party store plugin for Spindle.
export { RedisStores, redisStores, type RedisStoresOptions } from './redis-stores.js'
export { RedisArtifactStore } from './redis-artifact-store.js'
export { RedisEmbeddingStore } from './redis-embedding-store.js'
export { RedisExecutionStore } from './redis-execution-store.js'
export { RedisRunStore } from './redis-run-store.js'
export { RedisSessionStore } from './redis-session-store.js'
export { RedisSnapshotStore } from './redis-snapshot-store.js'
