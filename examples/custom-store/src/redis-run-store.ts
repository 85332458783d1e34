// RunStore on Redis: one JSON value per run, a sorted set for listing, an idempotency key claimed in the same
// Lua script as the run (so one key never gets two runs), and per-run event logs kept by seq (first write wins).
import {
  DuplicateError,
  NotFoundError,
  type AgentEvent,
  type ListRunsOptions,
  type NewRun,
  type RunClaimExpectation,
  type RunPatch,
  type RunRecord,
  type RunStore,
} from '@spindle/core'
import { applyRunPatch, rejectNaNListBounds, runClaimMatches } from '@spindle/core/plugin-kit'
import { parse, type RedisContext } from './redis-context.js'

const createScript = `if redis.call('EXISTS', KEYS[1]) == 1 then return 'id' end
if KEYS[2] ~= KEYS[1] and redis.call('SET', KEYS[2], ARGV[2], 'NX') == false then return 'key' end
redis.call('SET', KEYS[1], ARGV[1]) redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2]) return 'ok'`

/** Compare-and-set of a run's JSON: written only while the key still holds the text the caller read. */
const swapScript = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end redis.call('SET', KEYS[1], ARGV[2]) return 1`

const releaseScript = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end return 'ok'`

export class RedisRunStore implements RunStore {
  readonly specificationVersion = 'v1' as const
  constructor(private readonly context: RedisContext) {}

  #idempotencyKey = (sessionId: string, key: string) => this.context.key('idempotency', sessionId, key)

  async createRun(run: NewRun) {
    const now = Date.now()
    const record: RunRecord = {
      status: 'queued',
      metadata: {},
      ...structuredClone(run),
      step: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      createdAt: now,
      updatedAt: now,
    }
    const runKey = this.context.key('run', run.id)
    const claim = run.idempotencyKey === undefined ? runKey : this.#idempotencyKey(run.sessionId, run.idempotencyKey)
    const outcome = await this.context.redis.eval(createScript, 3, runKey, claim, this.context.key('runs'), JSON.stringify(record), run.id, now)
    if (outcome === 'id') throw new DuplicateError(`[spindle-store-redis] run "${run.id}" already exists`)
    if (outcome === 'key')
      throw new DuplicateError(`[spindle-store-redis] session "${run.sessionId}" already has a run with idempotency key "${run.idempotencyKey}"`)
    return record
  }

  async getRun(id: string) {
    return parse<RunRecord>(await this.context.redis.get(this.context.key('run', id)))
  }

  async findRunByIdempotencyKey(sessionId: string, key: string) {
    const id = await this.context.redis.get(this.#idempotencyKey(sessionId, key))
    return id === null ? undefined : this.getRun(id)
  }

  async updateRun(id: string, patch: RunPatch) {
    const record = await this.getRun(id)
    if (record === undefined) throw new NotFoundError(`[spindle-store-redis] run "${id}" does not exist`)
    const before = record.idempotencyKey
    applyRunPatch(record, structuredClone(patch))
    await this.context.redis.set(this.context.key('run', id), JSON.stringify(record))
    await this.#releaseKey(record, patch, before)
    return record
  }

  /** A compare-and-set: read, check the status and lease, then swap the JSON only if it is still the text read (Lua). */
  async claimRun(id: string, expected: RunClaimExpectation, patch: RunPatch) {
    const runKey = this.context.key('run', id)
    for (;;) {
      const text = await this.context.redis.get(runKey)
      if (text === null) throw new NotFoundError(`[spindle-store-redis] run "${id}" does not exist`)
      const record = JSON.parse(text) as RunRecord
      if (!runClaimMatches(record, expected)) return undefined
      const before = record.idempotencyKey
      applyRunPatch(record, structuredClone(patch))
      // Another write since the read: read again (and, most often, find the claim taken).
      if ((await this.context.redis.eval(swapScript, 1, runKey, text, JSON.stringify(record))) !== 1) continue
      await this.#releaseKey(record, patch, before)
      return record
    }
  }

  /** `{ idempotencyKey: undefined }` releases an expired key: its claim goes, if this run still holds it. */
  async #releaseKey(record: RunRecord, patch: RunPatch, before: string | undefined) {
    if (Object.hasOwn(patch, 'idempotencyKey') && before !== undefined) {
      await this.context.redis.eval(releaseScript, 1, this.#idempotencyKey(record.sessionId, before), record.id)
    }
  }

  async listRuns(options: ListRunsOptions = {}) {
    rejectNaNListBounds('store-redis', 'listRuns', options)
    const ids = await this.context.redis.zrevrangebyscore(this.context.key('runs'), options.before === undefined ? '+inf' : `(${options.before}`, '-inf')
    const statuses = options.status === undefined ? undefined : [options.status].flat()
    const runs = (ids.length === 0 ? [] : await this.context.redis.mget(ids.map((id) => this.context.key('run', id))))
      .map((text) => parse<RunRecord>(text))
      .filter(
        (run): run is RunRecord =>
          run !== undefined &&
          (options.sessionId === undefined || run.sessionId === options.sessionId) &&
          (statuses === undefined || statuses.includes(run.status)),
      )
    runs.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    return options.limit === undefined ? runs : runs.slice(0, options.limit)
  }

  async appendEvents(runId: string, events: AgentEvent[]) {
    const transaction = this.context.redis.multi()
    for (const event of events) {
      transaction
        .hsetnx(this.context.key('events', runId), String(event.seq), JSON.stringify(event))
        .zadd(this.context.key('event-seqs', runId), 'NX', event.seq, String(event.seq))
    }
    await transaction.exec()
  }

  async listEvents(runId: string, options: { after?: number; limit?: number } = {}) {
    rejectNaNListBounds('store-redis', 'listEvents', options)
    const range = [options.after === undefined ? '-inf' : `(${options.after}`, '+inf'] as const
    const seqs =
      options.limit === undefined
        ? await this.context.redis.zrangebyscore(this.context.key('event-seqs', runId), ...range)
        : await this.context.redis.zrangebyscore(this.context.key('event-seqs', runId), ...range, 'LIMIT', 0, options.limit)
    if (seqs.length === 0) return []
    return (await this.context.redis.hmget(this.context.key('events', runId), ...seqs)).map((text) => JSON.parse(text!) as AgentEvent)
  }
}
