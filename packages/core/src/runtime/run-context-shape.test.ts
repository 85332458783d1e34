// A run's deps and init are single object literals with every field, whatever they hold: one hidden class (V8 map)
// each, held by the literal's allocation site, so it survives a full GC between runs (see util/fast-path.ts).
// Checked with V8's own %HaveSameMap.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { memoryStores } from '../stores/memory/memory-stores.js'
import { runExecutionDeps, runExecutionInit, type RunExecutionDeps, type RunExecutionStart } from './run-context.js'
import { initialRunState } from './run-state.js'

setFlagsFromString('--allow-natives-syntax')
setFlagsFromString('--expose-gc')
const collect = runInNewContext('gc') as () => void
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean

describe('run deps and init', () => {
  it('have one shape whatever they hold', () => {
    collect()
    const full = runExecutionDeps({
      stores: memoryStores(),
      policy: {},
      ownerId: 'owner',
      agents: { resolve: () => ({}) },
      observers: [],
      redactor: false,
    } as unknown as RunExecutionDeps)
    const bare = runExecutionDeps({} as RunExecutionDeps)
    expect(haveSameMap(full, bare)).toBe(true)
    const init = runExecutionInit({
      state: initialRunState('run_2', 'ses_2', 3),
      agent: { name: 'a', instructions: 'Be brief.' },
      messages: [],
      parentRunId: 'p',
    } as unknown as RunExecutionStart)
    expect(init).toMatchObject({ agentName: 'a', instructions: 'Be brief.', parentRunId: 'p' })
    expect(haveSameMap(init, runExecutionInit({ agent: { name: 'b' } } as RunExecutionStart))).toBe(true)
    // A spread with an optional key would not be: the check tells them apart.
    expect(haveSameMap(init, { ...init, extra: 1 })).toBe(false)
  })
})
