// The conformance checks name the broken rule and its fix: proven against deliberately broken stores.
import {
  ConformanceError,
  MemoryArtifactStore,
  MemoryRunStore,
  MemorySessionStore,
  NotFoundError,
  StaleFenceError,
  type AppendOptions,
  type ArtifactStore,
  type ListEntriesOptions,
  type RunStore,
  type SessionEntry,
  type SessionEntryInput,
  type SessionRecord,
  type SessionStore,
} from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { artifactStoreRules } from './artifact-store-rules.js'
import { runCheck, type ConformanceCheck } from './harness.js'
import { ruleOf } from './rule.js'
import { runStoreRules } from './run-store-rules.js'
import { sessionStoreRules } from './session-store-rules.js'

interface Flaws {
  /** Reads lastSeq, yields to the event loop, then writes: parallel appends reuse sequence numbers. */
  racyAppend?: boolean
  /** Keeps entries keyed by the seq as a string and sorts them as strings (1, 10, 2…). */
  stringOrder?: boolean
  /** One module-level map for every instance. */
  shared?: boolean
  /** Ignores the fencing token. */
  noFencing?: boolean
  /** Keeps the highest fence in this process only, not with the session data. */
  fenceInProcess?: boolean
}

type SessionState = { record: SessionRecord; entries: Map<string, SessionEntry>; fence?: number }
const leakedSessions = new Map<string, SessionState>()

/** A small hand-written SessionStore with switchable bugs, like the ones third-party stores really ship. */
class FlawedSessionStore implements SessionStore {
  readonly specificationVersion = 'v1' as const
  readonly #sessions: Map<string, SessionState>
  readonly #fences = new Map<string, number>()
  constructor(
    private readonly flaws: Flaws,
    data?: Map<string, SessionState>,
  ) {
    this.#sessions = data ?? (flaws.shared ? leakedSessions : new Map())
  }
  /** Another handle on the same data, as a second database connection would be. */
  connect(): FlawedSessionStore {
    return new FlawedSessionStore(this.flaws, this.#sessions)
  }
  async createSession(input: { id?: string; title?: string; resourceId?: string; metadata?: SessionRecord['metadata'] } = {}) {
    const id = input.id ?? crypto.randomUUID()
    const record: SessionRecord = { id, ...input, metadata: input.metadata ?? {}, lastSeq: 0, createdAt: Date.now(), updatedAt: Date.now() }
    this.#sessions.set(id, { record, entries: new Map() })
    return structuredClone(record)
  }
  async getSession(id: string) {
    return structuredClone(this.#sessions.get(id)?.record)
  }
  async listSessions() {
    return [...this.#sessions.values()].map((state) => structuredClone(state.record)).reverse()
  }
  async updateSession(id: string, patch: { title?: string }) {
    const state = this.#sessions.get(id)
    if (state === undefined) throw new NotFoundError(id)
    Object.assign(state.record, patch)
    return structuredClone(state.record)
  }
  async deleteSession(id: string) {
    this.#sessions.delete(id)
  }
  async append(sessionId: string, entries: SessionEntryInput[], options: AppendOptions = {}) {
    const state = this.#sessions.get(sessionId)
    if (state === undefined) throw new NotFoundError(sessionId)
    if (!this.flaws.noFencing && options.fence !== undefined) {
      const highest = this.flaws.fenceInProcess ? this.#fences.get(sessionId) : state.fence
      if (highest !== undefined && options.fence < highest) throw new StaleFenceError('stale')
      if (this.flaws.fenceInProcess) this.#fences.set(sessionId, options.fence)
      else state.fence = options.fence
    }
    const lastSeq = state.record.lastSeq
    if (this.flaws.racyAppend) await new Promise((resolve) => setImmediate(resolve))
    const appended = entries.map((entry, i): SessionEntry => ({ ...structuredClone(entry), sessionId, seq: lastSeq + i + 1, createdAt: Date.now() }))
    for (const entry of appended) state.entries.set(String(entry.seq), entry)
    state.record.lastSeq = lastSeq + appended.length
    return structuredClone(appended)
  }
  async listEntries(sessionId: string, options: ListEntriesOptions = {}) {
    const state = this.#sessions.get(sessionId)
    if (state === undefined) return []
    const keys = [...state.entries.keys()].sort(this.flaws.stringOrder ? undefined : (a, b) => Number(a) - Number(b))
    let entries = keys.map((key) => state.entries.get(key)!)
    entries = entries.filter((e) => (options.after === undefined || e.seq > options.after) && (options.before === undefined || e.seq < options.before))
    if (options.kind !== undefined) entries = entries.filter((e) => e.kind === options.kind)
    if (options.order === 'desc') entries.reverse()
    return structuredClone(options.limit === undefined ? entries : entries.slice(0, options.limit))
  }
}

/** An artifact store that streams the whole artifact whatever range is asked. */
function rangeIgnoringArtifacts(): ArtifactStore {
  const inner = new MemoryArtifactStore()
  return {
    specificationVersion: 'v1',
    put: (source, options) => inner.put(source, options),
    head: (id) => inner.head(id),
    read: (id) => inner.read(id),
    delete: (id) => inner.delete(id),
    list: (options) => inner.list(options),
  }
}

/**
 * A MemoryRunStore whose claimRun is a read, a wait, then a write (`racy`: parallel claims all win), or compares the
 * status only (`statusOnly`: a claim with a stale lease wins).
 */
function flawedClaims(flaw: 'racy' | 'statusOnly'): RunStore {
  const inner = new MemoryRunStore()
  const store: RunStore = {
    specificationVersion: 'v1',
    createRun: (run) => inner.createRun(run),
    getRun: (id) => inner.getRun(id),
    findRunByIdempotencyKey: (sessionId, key) => inner.findRunByIdempotencyKey(sessionId, key),
    updateRun: (id, patch) => inner.updateRun(id, patch),
    listRuns: (options) => inner.listRuns(options),
    appendEvents: (runId, events) => inner.appendEvents(runId, events),
    listEvents: (runId, options) => inner.listEvents(runId, options),
    async claimRun(id, expected, patch) {
      const record = await inner.getRun(id)
      if (record === undefined) throw new NotFoundError(`run ${id}`)
      await new Promise((resolve) => setTimeout(resolve, 1))
      const leaseMatches = flaw === 'statusOnly' || JSON.stringify(record.lease) === JSON.stringify(expected.lease)
      return record.status === expected.status && leaseMatches ? inner.updateRun(id, patch) : undefined
    },
  }
  return store
}

async function failure<S>(check: ConformanceCheck<S>, create: () => S): Promise<ConformanceError> {
  try {
    await runCheck(check, { create }, (store: S) => store)
  } catch (error) {
    expect(error).toBeInstanceOf(ConformanceError)
    return error as ConformanceError
  }
  throw new Error('the check passed against a broken store')
}

function expectRule(error: ConformanceError, rule: string, fixHint: RegExp): void {
  expect(ruleOf(error)).toBe(rule)
  expect(error.code).toBe('conformance')
  expect(error.message).toContain(`Conformance rule "${rule}" is broken.`)
  expect(error.message).toMatch(/How to fix: /)
  expect(error.message).toMatch(fixHint)
  expect(error.cause).toBeInstanceOf(Error)
  expect(error.message).toContain((error.cause as Error).message.split('\n')[0])
}

describe('conformance checks against broken stores', () => {
  it('a racy append that reuses sequence numbers breaks session.append.gap-free-concurrent', async () => {
    const error = await failure(sessionStoreRules['session.append.concurrent'], () => new FlawedSessionStore({ racyAppend: true }))
    expectRule(error, 'session.append.gap-free-concurrent', /same transaction as the insert/)
  })

  it('entries sorted as strings (1, 10, 2) break session.entries.after-before', async () => {
    const error = await failure(sessionStoreRules['session.list-entries.pagination'], () => new FlawedSessionStore({ stringOrder: true }))
    expectRule(error, 'session.entries.after-before', /seq > after and seq < before, ascending/)
  })

  it('a store that shares a module-level map across instances breaks session.isolation', async () => {
    leakedSessions.clear()
    const error = await failure(sessionStoreRules['session.isolation'], () => new FlawedSessionStore({ shared: true }))
    expectRule(error, 'session.isolation', /no module-level maps/)
  })

  it('a store that ignores fencing tokens breaks session.fence.rejects-stale', async () => {
    const error = await failure(sessionStoreRules['session.append.fencing'], () => new FlawedSessionStore({ noFencing: true }))
    expectRule(error, 'session.fence.rejects-stale', /StaleFenceError/)
    expect((error.cause as Error).message).toMatch(/stale_fence/)
  })

  it('a fence kept in process memory breaks session.fence.two-connections', async () => {
    const check = sessionStoreRules['session.fence.two-connections']
    const options = {
      create: () => new FlawedSessionStore({ fenceInProcess: true }),
      createSecondConnection: async (store: FlawedSessionStore) => store.connect(),
    }
    const error = await runCheck(check, options, (store: FlawedSessionStore) => store).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(ConformanceError)
    expectRule(error as ConformanceError, 'session.fence.two-connections', /not in process memory/)
    await runCheck(check, { ...options, create: () => new FlawedSessionStore({}) }, (store: FlawedSessionStore) => store)
  })

  it('an artifact store that ignores ranges breaks artifact.read.range', async () => {
    const error = await failure(artifactStoreRules['artifact.read.range'], rangeIgnoringArtifacts)
    expectRule(error, 'artifact.read.range', /bytes \[start, end\)/)
  })

  it('a claimRun that reads, waits, then writes breaks run.claim.concurrent', async () => {
    const error = await failure(runStoreRules['run.claim.concurrent'], () => flawedClaims('racy'))
    expectRule(error, 'run.claim.concurrent', /exactly one win/)
  })

  it('a claimRun that compares the status only breaks run.claim.stale', async () => {
    const error = await failure(runStoreRules['run.claim'], () => flawedClaims('statusOnly'))
    expectRule(error, 'run.claim.stale', /status or lease differs/)
  })

  it('the same checks pass against the flawless variants (the broken behaviour is what fails)', async () => {
    for (const id of ['session.append.concurrent', 'session.list-entries.pagination', 'session.isolation', 'session.append.fencing']) {
      await runCheck(sessionStoreRules[id], { create: () => new FlawedSessionStore({}) }, (store: SessionStore) => store)
      await runCheck(sessionStoreRules[id], { create: () => new MemorySessionStore() }, (store: SessionStore) => store)
    }
    await runCheck(artifactStoreRules['artifact.read.range'], { create: () => new MemoryArtifactStore() }, (store: ArtifactStore) => store)
    for (const id of ['run.claim', 'run.claim.concurrent'])
      await runCheck(runStoreRules[id]!, { create: () => new MemoryRunStore() }, (store: RunStore) => store)
  })
})
