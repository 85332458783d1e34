// The copy-out checks catch a store that hands out its stored objects: proven against the memory stores wrapped so
// that one method returns one shared object (the object a later read returns too), method by method.
import {
  ConformanceError,
  MemoryArtifactStore,
  MemoryEmbeddingStore,
  MemoryExecutionStore,
  MemoryRunStore,
  MemorySessionStore,
  MemorySnapshotStore,
} from '@spindle/core'
import { describe, expect, it } from 'vitest'
import {
  artifactCopyOutRules,
  embeddingCopyOutRules,
  executionCopyOutRules,
  runCopyOutRules,
  sessionCopyOutRules,
  snapshotCopyOutRules,
} from './copy-out-rules.js'
import { runCheck, type ConformanceCheck } from './harness.js'
import { ruleOf } from './rule.js'

/** Where a leaking write puts its result: the read (and its arguments) that returns that same object afterwards. */
type Into = (args: unknown[], result: unknown) => { read: string; args: unknown[]; shared: unknown }

/**
 * `inner` with one method leaking: a read returns the object it returned before for the same arguments (until a
 * write), a write's result becomes what the read named by `into` returns. Every other method behaves as `inner`'s.
 */
function leaky<S extends object>(inner: S, reads: readonly string[], leak: string, into?: Into): S {
  const shared = new Map<string, unknown>()
  const keyOf = (read: string, args: unknown[]) => `${read} ${JSON.stringify(args)}`
  return new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      const name = String(property)
      const call = (args: unknown[]): unknown => (value as (...args: unknown[]) => unknown).apply(target, args)
      if (reads.includes(name)) {
        return async (...args: unknown[]) => {
          const key = keyOf(name, args)
          if (shared.has(key)) return shared.get(key)
          const result = await call(args)
          if (name === leak) shared.set(key, result)
          return result
        }
      }
      if (name === leak && into !== undefined) {
        return async (...args: unknown[]) => {
          shared.clear()
          const result = await call(args)
          const target = into(args, result)
          shared.set(keyOf(target.read, target.args), target.shared)
          return result
        }
      }
      return (...args: unknown[]) => {
        shared.clear()
        return call(args)
      }
    },
  })
}

async function brokenRule<S>(check: ConformanceCheck<S>, create: () => S): Promise<string | undefined> {
  try {
    await runCheck(check, { create }, (store: S) => store)
  } catch (error) {
    expect(error).toBeInstanceOf(ConformanceError)
    expect((error as ConformanceError).message).toMatch(/How to fix: .* must return a copy the caller owns, at every depth/)
    return ruleOf(error)
  }
  return undefined
}

interface Suite<S extends object> {
  check: ConformanceCheck<S>
  create: () => S
  reads: readonly string[]
  /** Leaking method → the rule that must break, and where a leaking write's result shows up. */
  leaks: Record<string, { rule: string; into?: Into }>
}

const id = (args: unknown[]) => [args[0]]
const suites: Record<string, Suite<object>> = {
  runs: {
    check: runCopyOutRules['run.copied-out'] as ConformanceCheck<object>,
    create: () => new MemoryRunStore(),
    reads: ['getRun', 'findRunByIdempotencyKey', 'listRuns'],
    leaks: {
      createRun: { rule: 'run.copied-out.createRun', into: (args, shared) => ({ read: 'getRun', args: [(args[0] as { id: string }).id], shared }) },
      updateRun: { rule: 'run.copied-out.updateRun', into: (args, shared) => ({ read: 'getRun', args: id(args), shared }) },
      claimRun: { rule: 'run.copied-out.claimRun', into: (args, shared) => ({ read: 'getRun', args: id(args), shared }) },
      getRun: { rule: 'run.copied-out.getRun' },
      findRunByIdempotencyKey: { rule: 'run.copied-out.findRunByIdempotencyKey' },
      listRuns: { rule: 'run.copied-out.listRuns' },
    },
  },
  sessions: {
    check: sessionCopyOutRules['session.copied-out'] as ConformanceCheck<object>,
    create: () => new MemorySessionStore(),
    reads: ['getSession', 'listSessions', 'listEntries'],
    leaks: {
      createSession: {
        rule: 'session.copied-out.createSession',
        into: (args, shared) => ({ read: 'getSession', args: [(args[0] as { id: string }).id], shared }),
      },
      updateSession: { rule: 'session.copied-out.updateSession', into: (args, shared) => ({ read: 'getSession', args: id(args), shared }) },
      append: { rule: 'session.copied-out.append', into: (args, shared) => ({ read: 'listEntries', args: id(args), shared }) },
      getSession: { rule: 'session.copied-out.getSession' },
      listSessions: { rule: 'session.copied-out.listSessions' },
      listEntries: { rule: 'session.copied-out.listEntries' },
    },
  },
  executions: {
    check: executionCopyOutRules['execution.copied-out'] as ConformanceCheck<object>,
    create: () => new MemoryExecutionStore(),
    reads: ['get', 'listByRun'],
    leaks: {
      start: {
        rule: 'execution.copied-out.start',
        into: (args, result) => ({ read: 'get', args: [(args[0] as { key: string }).key], shared: (result as { record: unknown }).record }),
      },
      finish: { rule: 'execution.copied-out.finish', into: (args, shared) => ({ read: 'get', args: id(args), shared }) },
      get: { rule: 'execution.copied-out.get' },
      listByRun: { rule: 'execution.copied-out.listByRun' },
    },
  },
  snapshots: {
    check: snapshotCopyOutRules['snapshot.copied-out'] as ConformanceCheck<object>,
    create: () => new MemorySnapshotStore(),
    reads: ['get', 'latest', 'list'],
    leaks: { get: { rule: 'snapshot.copied-out.get' }, latest: { rule: 'snapshot.copied-out.latest' }, list: { rule: 'snapshot.copied-out.list' } },
  },
  embeddings: {
    check: embeddingCopyOutRules['embedding.copied-out'] as ConformanceCheck<object>,
    create: () => new MemoryEmbeddingStore(),
    reads: ['get', 'query'],
    leaks: { get: { rule: 'embedding.copied-out.get' }, query: { rule: 'embedding.copied-out.query' } },
  },
  artifacts: {
    check: artifactCopyOutRules['artifact.copied-out'] as ConformanceCheck<object>,
    create: () => new MemoryArtifactStore(),
    reads: ['head', 'list'],
    leaks: {
      put: { rule: 'artifact.copied-out.put', into: (_args, shared) => ({ read: 'head', args: [(shared as { id: string }).id], shared }) },
      head: { rule: 'artifact.copied-out.head' },
      list: { rule: 'artifact.copied-out.list' },
    },
  },
}

describe('copy-out checks against stores that hand out one shared object', () => {
  for (const [kind, suite] of Object.entries(suites)) {
    for (const [method, { rule, into }] of Object.entries(suite.leaks)) {
      it(`${kind}: a ${method} that returns a shared object breaks ${rule}`, async () => {
        expect(await brokenRule(suite.check, () => leaky(suite.create(), suite.reads, method, into))).toBe(rule)
      })
    }
    it(`${kind}: the same check passes through the wrapper when nothing leaks`, async () => {
      expect(await brokenRule(suite.check, () => leaky(suite.create(), suite.reads, 'nothing'))).toBeUndefined()
    })
  }

  it('mutateDeep changes every depth of a value: objects, arrays and typed arrays', async () => {
    const { mutateDeep } = await import('./copy-out-rules.js')
    const value = { a: { b: [1, { c: 'x' }] }, bytes: new Uint8Array([1]) }
    mutateDeep(value)
    expect(value).toEqual({ a: { b: [1, { c: 'x', mutated: true }, 'mutated'], mutated: true }, bytes: new Uint8Array([2]), mutated: true })
  })
})
