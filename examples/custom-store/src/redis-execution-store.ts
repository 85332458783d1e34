// ExecutionStore on Redis: a hash per journal key (base, status, attempt, outcome); start and finish are Lua
// scripts, so parallel starts of one key create it once and count every other call as an attempt.
import { NotFoundError, type ExecutionRecord, type ExecutionStore, type JsonValue, type NewExecution } from '@spindle/core'
import type { RedisContext } from './redis-context.js'

const startScript = `if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'status') == 'started' then redis.call('HINCRBY', KEYS[1], 'attempt', 1) end
  return {0, redis.call('HMGET', KEYS[1], 'base', 'status', 'attempt', 'outcome')}
end
redis.call('HSET', KEYS[1], 'base', ARGV[1], 'status', 'started', 'attempt', 1, 'outcome', '{}')
redis.call('RPUSH', KEYS[2], ARGV[2])
return {1, redis.call('HMGET', KEYS[1], 'base', 'status', 'attempt', 'outcome')}`
const finishScript = `if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if redis.call('HGET', KEYS[1], 'status') == 'started' then redis.call('HSET', KEYS[1], 'status', ARGV[1], 'outcome', ARGV[2]) end
return redis.call('HMGET', KEYS[1], 'base', 'status', 'attempt', 'outcome')`

type Fields = [string | null, string | null, string | null, string | null]

function toRecord([base, status, attempt, outcome]: Fields): ExecutionRecord | undefined {
  if (base === null) return undefined
  return { ...JSON.parse(base), status, attempt: Number(attempt), ...JSON.parse(outcome ?? '{}') } as ExecutionRecord
}

export class RedisExecutionStore implements ExecutionStore {
  readonly specificationVersion = 'v1' as const
  constructor(private readonly context: RedisContext) {}

  async start(execution: NewExecution) {
    const { key, runId, step, callId, toolName, args } = execution
    const base = JSON.stringify({ key, runId, step, callId, toolName, args, startedAt: Date.now() })
    const [created, fields] = (await this.context.redis.eval(
      startScript,
      2,
      this.context.key('execution', key),
      this.context.key('executions', runId),
      base,
      key,
    )) as [number, Fields]
    return { record: toRecord(fields)!, created: created === 1 }
  }

  async finish(key: string, outcome: { status: Exclude<ExecutionRecord['status'], 'started'>; result?: JsonValue; error?: { code: string; message: string } }) {
    const stored = JSON.stringify({ result: outcome.result, error: outcome.error, finishedAt: Date.now() })
    const fields = (await this.context.redis.eval(finishScript, 1, this.context.key('execution', key), outcome.status, stored)) as Fields | null
    if (fields === null) throw new NotFoundError(`[spindle-store-redis] no execution "${key}" was started`)
    return toRecord(fields)!
  }

  async get(key: string) {
    return toRecord((await this.context.redis.hmget(this.context.key('execution', key), 'base', 'status', 'attempt', 'outcome')) as Fields)
  }

  async listByRun(runId: string) {
    const keys = await this.context.redis.lrange(this.context.key('executions', runId), 0, -1)
    return (await Promise.all(keys.map((key) => this.get(key)))).filter((record): record is ExecutionRecord => record !== undefined)
  }
}
