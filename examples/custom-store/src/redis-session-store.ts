// SessionStore on Redis: a hash per session (data, lastSeq, fence) and a list per log. One Lua script checks the
// fence, assigns seq = lastSeq + 1… and pushes the entries, so concurrent appends from any connection stay gap-free.
import {
  DuplicateError,
  NotFoundError,
  StaleFenceError,
  type AppendOptions,
  type JsonObject,
  type ListEntriesOptions,
  type ListSessionsOptions,
  type SessionEntry,
  type SessionEntryInput,
  type SessionRecord,
  type SessionStore,
} from '@spindle/core'
import { rejectNaNListBounds } from '@spindle/core/plugin-kit'
import { parse, type RedisContext } from './redis-context.js'

const createScript = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[1], 'lastSeq', 0, 'updatedAt', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3]) return 1`
// ARGV: fence ('' for none), now, sessionId, then each entry's JSON without its closing brace (the script appends ,"seq":n}).
const appendScript = `if redis.call('EXISTS', KEYS[1]) == 0 then return {err = 'not_found'} end
if ARGV[1] ~= '' then
  local fence = tonumber(redis.call('HGET', KEYS[1], 'fence') or '-1')
  if tonumber(ARGV[1]) < fence then return {err = 'stale_fence'} end
  redis.call('HSET', KEYS[1], 'fence', ARGV[1])
end
local seq = tonumber(redis.call('HGET', KEYS[1], 'lastSeq'))
local first = seq + 1
for i = 4, #ARGV do seq = seq + 1 redis.call('RPUSH', KEYS[2], ARGV[i] .. ',"seq":' .. seq .. '}') end
local updated = math.max(tonumber(ARGV[2]), tonumber(redis.call('HGET', KEYS[1], 'updatedAt')))
redis.call('HSET', KEYS[1], 'lastSeq', seq, 'updatedAt', updated)
redis.call('ZADD', KEYS[3], updated, ARGV[3])
return first`

type SessionData = Omit<SessionRecord, 'lastSeq' | 'updatedAt'>

export class RedisSessionStore implements SessionStore {
  readonly specificationVersion = 'v1' as const
  constructor(private readonly context: RedisContext) {}

  #keys = (id: string) => ({ session: this.context.key('session', id), log: this.context.key('log', id), index: this.context.key('sessions') })

  async createSession(input: { id?: string; resourceId?: string; title?: string; metadata?: JsonObject } = {}) {
    const now = Date.now()
    const data: SessionData = {
      id: input.id ?? crypto.randomUUID(),
      ...(input.resourceId !== undefined && { resourceId: input.resourceId }),
      ...(input.title !== undefined && { title: input.title }),
      metadata: input.metadata ?? {},
      createdAt: now,
    }
    const keys = this.#keys(data.id)
    const created = await this.context.redis.eval(createScript, 2, keys.session, keys.index, JSON.stringify(data), now, data.id)
    if (created === 0) throw new DuplicateError(`[spindle-store-redis] session "${data.id}" already exists`)
    return { ...structuredClone(data), lastSeq: 0, updatedAt: now }
  }

  async getSession(id: string) {
    const [data, lastSeq, updatedAt] = await this.context.redis.hmget(this.#keys(id).session, 'data', 'lastSeq', 'updatedAt')
    return data === null ? undefined : ({ ...parse<SessionData>(data)!, lastSeq: Number(lastSeq), updatedAt: Number(updatedAt) } as SessionRecord)
  }

  async listSessions(options: ListSessionsOptions = {}) {
    rejectNaNListBounds('store-redis', 'listSessions', options)
    const ids = await this.context.redis.zrevrangebyscore(this.context.key('sessions'), options.before === undefined ? '+inf' : `(${options.before}`, '-inf')
    const records = (await Promise.all(ids.map((id) => this.getSession(id)))).filter((record): record is SessionRecord => record !== undefined)
    const matching = records.filter((record) => options.resourceId === undefined || record.resourceId === options.resourceId)
    matching.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    return options.limit === undefined ? matching : matching.slice(0, options.limit)
  }

  async updateSession(id: string, patch: { title?: string; metadata?: JsonObject }) {
    const current = await this.getSession(id)
    if (current === undefined) throw new NotFoundError(`[spindle-store-redis] session "${id}" does not exist`)
    const { lastSeq: _lastSeq, updatedAt: _updatedAt, ...data } = { ...current, ...structuredClone(patch) }
    const updatedAt = Math.max(Date.now(), current.updatedAt)
    await this.context.redis
      .multi()
      .hset(this.#keys(id).session, 'data', JSON.stringify(data), 'updatedAt', updatedAt)
      .zadd(this.#keys(id).index, updatedAt, id)
      .exec()
    return (await this.getSession(id))!
  }

  async deleteSession(id: string) {
    const keys = this.#keys(id)
    await this.context.redis.multi().del(keys.session, keys.log).zrem(keys.index, id).exec()
  }

  async append(sessionId: string, entries: SessionEntryInput[], options: AppendOptions = {}) {
    const keys = this.#keys(sessionId)
    const createdAt = Date.now()
    const stored = entries.map((entry) => ({ ...entry, sessionId, createdAt }))
    const bodies = stored.map((entry) => JSON.stringify(entry).slice(0, -1))
    let first: number
    try {
      first = (await this.context.redis.eval(
        appendScript,
        3,
        keys.session,
        keys.log,
        keys.index,
        options.fence ?? '',
        createdAt,
        sessionId,
        ...bodies,
      )) as number
    } catch (error) {
      const message = (error as Error).message ?? ''
      if (message.includes('not_found')) throw new NotFoundError(`[spindle-store-redis] session "${sessionId}" does not exist`, { cause: error })
      if (message.includes('stale_fence'))
        throw new StaleFenceError(`[spindle-store-redis] fence ${options.fence} is older than the session's; this writer lost its lease`, { cause: error })
      throw error
    }
    return stored.map((entry, index) => ({ ...structuredClone(entry), seq: first + index }) as SessionEntry)
  }

  async listEntries(sessionId: string, options: ListEntriesOptions = {}) {
    rejectNaNListBounds('store-redis', 'listEntries', options)
    // seq n sits at list index n - 1, so a seq range is an index range.
    const start = options.after === undefined ? 0 : Math.max(0, options.after)
    const stop = options.before === undefined ? -1 : options.before - 2
    if (options.before !== undefined && stop < start) return []
    let entries = (await this.context.redis.lrange(this.#keys(sessionId).log, start, stop)).map((text) => JSON.parse(text) as SessionEntry)
    if (options.kind !== undefined) entries = entries.filter((entry) => entry.kind === options.kind)
    if (options.order === 'desc') entries.reverse()
    return options.limit === undefined ? entries : entries.slice(0, options.limit)
  }
}
