// SnapshotStore on Redis: one hash per run, a field per version (saving a version again replaces it).
import type { RunSnapshot, SnapshotStore } from '@spindle/core'
import { parse, type RedisContext } from './redis-context.js'

export class RedisSnapshotStore implements SnapshotStore {
  readonly specificationVersion = 'v1' as const
  constructor(private readonly context: RedisContext) {}

  async save(snapshot: RunSnapshot) {
    await this.context.redis.hset(this.context.key('snapshots', snapshot.runId), String(snapshot.version), JSON.stringify(snapshot))
  }

  async latest(runId: string) {
    return (await this.list(runId)).at(-1)
  }

  async get(runId: string, version: number) {
    return parse<RunSnapshot>(await this.context.redis.hget(this.context.key('snapshots', runId), String(version)))
  }

  async list(runId: string) {
    const snapshots = Object.values(await this.context.redis.hgetall(this.context.key('snapshots', runId))).map((text) => JSON.parse(text) as RunSnapshot)
    return snapshots.sort((a, b) => a.version - b.version)
  }

  async deleteRun(runId: string) {
    await this.context.redis.del(this.context.key('snapshots', runId))
  }
}
