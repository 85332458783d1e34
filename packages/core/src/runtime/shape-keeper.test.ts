// The module-level instances that keep the hidden classes (V8 maps) of the per-run classes alive between runs:
// a run built after a full GC must get the very map of the keeper, so the hot methods' inline caches and their
// optimized code stay valid (see `runExecutionShapeKeeper`). Checked with V8's own %HaveSameMap.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Extensions } from '../extensions/extensions.js'
import { mockModel } from '../providers/mock-model.js'
import { memoryStores } from '../stores/memory/memory-stores.js'
import { ToolRegistry } from '../tools/tool-registry.js'
import { toolScopeShapeKeeper, ToolScope } from '../tools/tool-scope.js'
import { defineTool } from '../tools/define-tool.js'
import {
  RunExecution,
  runExecutionDeps,
  runExecutionInit,
  runExecutionShapeKeeper,
  type RunExecutionDeps,
  type RunExecutionInit,
  type RunExecutionStart,
} from './run-execution.js'
import { AgentRuntime } from './agent-runtime.js'
import { initialRunState } from './run-state.js'

setFlagsFromString('--allow-natives-syntax')
setFlagsFromString('--expose-gc')
const collect = runInNewContext('gc') as () => void
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean

describe('shape keepers', () => {
  it('a RunExecution built after a full GC, on real stores and a real state, has the keeper’s map', () => {
    collect()
    const deps = {
      stores: memoryStores(),
      policy: { maxSteps: 8, maxToolCalls: 32, maxLengthContinuations: 2, doomLoopThreshold: 3, budget: undefined },
    } as unknown as RunExecutionDeps
    const init = { state: initialRunState('run_1', 'ses_1', 1), messages: [] } as unknown as RunExecutionInit
    const execution = new RunExecution(deps, init)
    expect(haveSameMap(execution, runExecutionShapeKeeper)).toBe(true)
    // The check can fail: an object with other fields has another map.
    expect(haveSameMap(execution, { state: init.state })).toBe(false)
  })

  it('a RunExecution built after real runs (their fields set, a step timed) still has the keeper’s map', async () => {
    const runtime = new AgentRuntime(new Extensions())
    const echo = defineTool({ name: 'echo', description: 'Echoes', inputSchema: z.object({ text: z.string() }), execute: ({ text }) => text })
    for (let index = 0; index < 3; index++) {
      const model = mockModel([{ toolCalls: [{ name: 'echo', args: { text: 'hi' } }] }, { text: 'done' }])
      const output = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'go' })
      expect(output.finishReason).toBe('stop')
    }
    collect()
    const deps = { stores: memoryStores(), policy: { maxSteps: 8 } } as unknown as RunExecutionDeps
    const init = { state: initialRunState('run_3', 'ses_3', 1), messages: [] } as unknown as RunExecutionInit
    // A field whose representation a real run changes (an integer that becomes a double) would have made V8 replace the map.
    expect(haveSameMap(new RunExecution(deps, init), runExecutionShapeKeeper)).toBe(true)
  })

  it('a run’s deps and init have one shape whatever they hold (the keeper holds one of each)', () => {
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

  it('a ToolScope built after a full GC, on a registry and run tools, has the keeper’s map', () => {
    collect()
    const echo = defineTool({ name: 'echo', description: 'Echoes', inputSchema: z.object({ text: z.string() }), execute: ({ text }) => text })
    const registry = new ToolRegistry()
    registry.register(echo)
    const scope = new ToolScope(registry, [['echo2', echo]])
    expect(scope.get('echo2')).toBe(echo)
    expect(haveSameMap(scope, toolScopeShapeKeeper)).toBe(true)
  })
})
