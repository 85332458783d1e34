// The copy-out checks: every store method that returns an object hands the caller its own copy, or a value frozen at
// every depth that no caller can change. Each returned value is mutated at every depth (a frozen part is left as it
// is), then every read is made again and must return what it returned before.
import type { ArtifactStore, EmbeddingStore, ExecutionStore, RunStore, SessionStore, SnapshotStore } from '@spindle/core'
import { expect } from 'vitest'
import type { ConformanceChecks } from './harness.js'
import { rule } from './rule.js'

/**
 * Changes `value` at every depth, as a caller keeping a result could: a key added to each object, an item pushed on
 * each array, the first element of each typed array changed. A frozen object or array cannot be changed (a store may
 * hand out immutable values shared instead of copies): it is left as it is, and what it holds is still changed.
 */
export function mutateDeep(value: unknown): void {
  if (ArrayBuffer.isView(value)) {
    const view = value as unknown as { length?: number; [index: number]: number }
    if (typeof view.length === 'number' && view.length > 0) view[0] = (view[0] ?? 0) + 1
  } else if (Array.isArray(value)) {
    for (const item of value) mutateDeep(item)
    if (!Object.isFrozen(value)) value.push('mutated')
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) mutateDeep(item)
    if (!Object.isFrozen(value)) (value as Record<string, unknown>).mutated = true
  }
}

const copyFix = (method: string): string =>
  `${method} must return a copy the caller owns, at every depth (serialize, or structuredClone), or a value frozen at every depth: a caller changing what it returned must not change what any read returns afterwards (never return the stored mutable object, nor a shallow copy of it)`

type Reads = Record<string, () => Promise<unknown>>

/** Reads every reader once, then for each: mutates what it returns and expects every reader to return what it did before. */
async function expectReadsCopiedOut(prefix: string, reads: Reads): Promise<void> {
  const before = new Map<string, unknown>()
  for (const [name, read] of Object.entries(reads)) before.set(name, structuredClone(await read()))
  for (const [name, read] of Object.entries(reads)) {
    await rule(`${prefix}.${name}`, copyFix(name), async () => {
      const value = await read()
      expect(value, `${name} returned nothing`).toBeDefined()
      mutateDeep(value)
      for (const [other, again] of Object.entries(reads)) {
        expect(await again(), `${other} after the caller changed what ${name} returned`).toEqual(before.get(other))
      }
    })
  }
}

/** Makes a write, mutates what it returned, and expects `read` to return what the write returned before the mutation. */
async function expectWriteCopiedOut<T>(
  prefix: string,
  method: string,
  write: () => Promise<T>,
  read: () => Promise<unknown>,
  pick: (result: T) => unknown = (result) => result,
): Promise<void> {
  const result = await write()
  const expected = structuredClone(pick(result))
  await rule(`${prefix}.${method}`, copyFix(method), async () => {
    mutateDeep(result)
    expect(await read(), `a read after the caller changed what ${method} returned`).toEqual(expected)
  })
}

const deep = (text: string) => ({ text, list: ['a', { b: [1, 2] }], nested: { value: 1, none: null } })

export const runCopyOutRules: ConformanceChecks<RunStore> = {
  async 'run.copied-out'({ create }) {
    const store = await create()
    const get = () => store.getRun('r')
    const lease = { owner: 'worker-1', expiresAt: 1_800_000_000_000 }
    const fields = {
      sessionId: 's',
      request: deep('request'),
      metadata: deep('metadata'),
      idempotencyKey: 'k',
      status: 'running' as const,
      lease,
      startedAt: 1,
    }
    await expectWriteCopiedOut('run.copied-out', 'createRun', () => store.createRun({ id: 'r', ...fields }), get)
    const patch = { step: 2, usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 }, error: { code: 'tool', message: 'failed' }, metadata: deep('patched') }
    await expectWriteCopiedOut('run.copied-out', 'updateRun', () => store.updateRun('r', patch), get)
    if (store.claimRun !== undefined) {
      const next = { owner: 'worker-2', expiresAt: 1_800_000_000_001 }
      await expectWriteCopiedOut('run.copied-out', 'claimRun', async () => (await store.claimRun!('r', { status: 'running', lease }, { lease: next }))!, get)
    }
    await store.createRun({ id: 'r-2', sessionId: 's', request: deep('second') })
    await expectReadsCopiedOut('run.copied-out', {
      getRun: get,
      findRunByIdempotencyKey: () => store.findRunByIdempotencyKey('s', 'k'),
      listRuns: () => store.listRuns({ sessionId: 's' }),
    })
  },
}

export const sessionCopyOutRules: ConformanceChecks<SessionStore> = {
  async 'session.copied-out'({ create }) {
    const store = await create()
    const get = () => store.getSession('s')
    await expectWriteCopiedOut(
      'session.copied-out',
      'createSession',
      () => store.createSession({ id: 's', resourceId: 'res', title: 't', metadata: deep('metadata') }),
      get,
    )
    await expectWriteCopiedOut('session.copied-out', 'updateSession', () => store.updateSession('s', { metadata: deep('updated') }), get)
    const message = {
      role: 'assistant' as const,
      content: [
        { type: 'text' as const, text: 'hi' },
        { type: 'tool-call' as const, toolCallId: 'c', toolName: 't', args: deep('args') },
      ],
    }
    const compaction = { throughSeq: 1, strategy: 'summary', summary: 'sum', carried: [{ seq: 1, message: { role: 'user' as const, content: 'kept' } }] }
    await expectWriteCopiedOut(
      'session.copied-out',
      'append',
      () =>
        store.append('s', [
          { kind: 'message', message, runId: 'r' },
          { kind: 'compaction', compaction },
        ]),
      () => store.listEntries('s'),
    )
    await expectReadsCopiedOut('session.copied-out', {
      getSession: get,
      listSessions: () => store.listSessions({ resourceId: 'res' }),
      listEntries: () => store.listEntries('s'),
    })
  },
}

export const executionCopyOutRules: ConformanceChecks<ExecutionStore> = {
  async 'execution.copied-out'({ create }) {
    const store = await create()
    const call = (id: string) => ({ key: `r:1:${id}`, runId: 'r', step: 1, callId: id, toolName: 'tool', args: deep(id) })
    await expectWriteCopiedOut(
      'execution.copied-out',
      'start',
      () => store.start(call('a')),
      () => store.get('r:1:a'),
      (started) => started.record,
    )
    await expectWriteCopiedOut(
      'execution.copied-out',
      'finish',
      () => store.finish('r:1:a', { status: 'succeeded', result: deep('result') }),
      () => store.get('r:1:a'),
    )
    await expectWriteCopiedOut(
      'execution.copied-out',
      'start.existing',
      () => store.start(call('a')),
      () => store.get('r:1:a'),
      (started) => started.record,
    )
    await store.start(call('b'))
    await store.finish('r:1:b', { status: 'failed', error: { code: 'tool', message: 'failed' } })
    await expectReadsCopiedOut('execution.copied-out', { get: () => store.get('r:1:a'), listByRun: () => store.listByRun('r') })
  },
}

export const snapshotCopyOutRules: ConformanceChecks<SnapshotStore> = {
  async 'snapshot.copied-out'({ create }) {
    const store = await create()
    for (const version of [1, 2]) await store.save({ runId: 'r', sessionId: 's', version, state: deep(`v${version}`), createdAt: 1_700_000_000_000 + version })
    await expectReadsCopiedOut('snapshot.copied-out', {
      get: () => store.get('r', 1),
      latest: () => store.latest('r'),
      list: () => store.list('r'),
    })
  },
}

export const embeddingCopyOutRules: ConformanceChecks<EmbeddingStore> = {
  async 'embedding.copied-out'({ create }) {
    const store = await create()
    await store.upsert([
      { id: 'a', vector: [1, 0], content: 'a', metadata: { tags: ['x'], n: 1 } },
      { id: 'b', vector: [0, 1], namespace: 'ns', metadata: { tags: ['y'] } },
    ])
    await expectReadsCopiedOut('embedding.copied-out', {
      get: () => store.get('a'),
      query: () => store.query({ vector: [1, 1], topK: 10 }),
      'query.namespace': () => store.query({ vector: [1, 1], topK: 10, namespace: 'ns' }),
    })
  },
}

export const artifactCopyOutRules: ConformanceChecks<ArtifactStore> = {
  async 'artifact.copied-out'({ create }) {
    const store = await create()
    const bytes = new Uint8Array([1, 2, 3, 4])
    const put = await store.put(bytes, { name: 'a.bin', metadata: deep('metadata') })
    await rule('artifact.copied-out.put', copyFix('put'), async () => {
      const expected = structuredClone(put)
      mutateDeep(put)
      expect(await store.head(expected.id)).toEqual(expected)
    })
    const head = () => store.head(put.id)
    await expectWriteCopiedOut('artifact.copied-out', 'put.existing', () => store.put(bytes), head)
    await store.put(new Uint8Array([5, 6]), { metadata: deep('second') })
    await expectReadsCopiedOut('artifact.copied-out', { head, list: () => store.list() })
  },
}
