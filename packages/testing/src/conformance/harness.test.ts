// A failure names the key `skip` takes (the check id), even when the broken rule has another id, and that key skips it.
import {
  ConformanceError,
  MemoryRunStore,
  MemorySessionStore,
  NotFoundError,
  type AgentEvent,
  type ListRunsOptions,
  type RunRecord,
  type RunStore,
  type SessionStore,
} from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { describeRunStore } from './describe-suites.js'
import { runRegisteredCheck, skipReason, type ConformanceCheck, type StoreSuiteOptions } from './harness.js'
import { ruleOf } from './rule.js'
import { runStoreRules } from './run-store-rules.js'
import { sessionStoreRules } from './session-store-rules.js'

/** Lists runs oldest first: breaks rule `run.list.order`, which check `run.list.newest-first` runs. */
class OldestFirstRunStore extends MemoryRunStore {
  override async listRuns(options?: ListRunsOptions): Promise<RunRecord[]> {
    return (await super.listRuns(options)).reverse()
  }
}

/** Refuses events for a run it has no record of. */
class StrictEventsRunStore extends MemoryRunStore {
  override async appendEvents(runId: string, events: AgentEvent[]): Promise<void> {
    if ((await this.getRun(runId)) === undefined) throw new NotFoundError(`run "${runId}" does not exist`)
    return super.appendEvents(runId, events)
  }
}

async function failure<S>(id: string, check: ConformanceCheck<S>, options: Omit<StoreSuiteOptions<S>, 'skip'>): Promise<ConformanceError> {
  const outcome = await runRegisteredCheck(id, check, options, (store: S) => store).then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(outcome).toBeInstanceOf(ConformanceError)
  return outcome as ConformanceError
}

/** The check id printed in a failure message. */
function printedCheck(error: Error): string | undefined {
  return /\(check (\S+) — skip it with that id\)/.exec(error.message.split('\n')[0]!)?.[1]
}

describe('a failure names the check id that skip takes', () => {
  it('rule run.list.order breaks in check run.list.newest-first, and the message says so', async () => {
    const error = await failure<RunStore>('run.list.newest-first', runStoreRules['run.list.newest-first']!, { create: () => new OldestFirstRunStore() })
    expect(ruleOf(error)).toBe('run.list.order')
    expect(error.message.split('\n')[0]).toBe(
      '[spindle/testing] Conformance rule "run.list.order" is broken (check run.list.newest-first — skip it with that id).',
    )
    expect(error.message).toMatch(/\nHow to fix: listRuns must return newest first/)
    expect(error.details).toMatchObject({ rule: 'run.list.order', check: 'run.list.newest-first' })
    expect(error.cause).toBeInstanceOf(Error)
    const printed = printedCheck(error)!
    expect(Object.keys(runStoreRules)).toContain(printed)
    expect(skipReason(printed, { [printed]: 'known bug' })).toBe('known bug')
    expect(skipReason(printed, { 'run.list.order': 'a rule id' })).toBeUndefined()
  })

  it('rule session.connections.shared breaks in check session.append.two-connections', async () => {
    const error = await failure<SessionStore>('session.append.two-connections', sessionStoreRules['session.append.two-connections']!, {
      create: () => new MemorySessionStore(),
      // A "second connection" that opens another, empty database.
      createSecondConnection: async () => new MemorySessionStore(),
    })
    expect(ruleOf(error)).toBe('session.connections.shared')
    expect(printedCheck(error)).toBe('session.append.two-connections')
  })

  it('a store that refuses events for a run it never created breaks rule run.events.unknown-run, with a fix', async () => {
    for (const id of ['run.events', 'run.events-copied']) {
      const error = await failure<RunStore>(id, runStoreRules[id]!, { create: () => new StrictEventsRunStore() })
      expect(ruleOf(error)).toBe('run.events.unknown-run')
      expect(error.message).toMatch(/How to fix: appendEvents must accept events for a run id that has no record/)
      expect(error.message).toMatch(/What failed: run "(other|r)" does not exist/)
      expect(printedCheck(error)).toBe(id)
    }
  })
})

// The printed check id skips the check: this suite runs against the oldest-first store, and only the check that
// store breaks is skipped (the rest pass).
describeRunStore('oldest-first (deliberately broken)', {
  create: () => new OldestFirstRunStore(),
  skip: { 'run.list.newest-first': 'this store lists runs oldest first on purpose' },
})
