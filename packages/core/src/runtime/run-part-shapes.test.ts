// A run's parts are object literals, not class instances: V8 holds a literal's hidden class (map) for as long as the
// function that builds it, but a class instance's only while an instance is alive, so a full GC between two runs
// would drop it and deoptimize the code compiled against it ("weak objects" in --trace-deopt; see util/fast-path.ts).
// Checked with V8's own natives: code optimized against a run's parts stays optimized across full GCs after every
// part died; the same check on a class instance fails.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { eventChannel } from '../events/event-channel.js'
import { Extensions } from '../extensions/extensions.js'
import { createRedactor } from '../observability/redactor.js'
import { StreamRedaction } from '../observability/stream-redaction.js'
import { mockModel } from '../providers/mock-model.js'
import { memoryStores } from '../stores/memory/memory-stores.js'
import { defineTool } from '../tools/define-tool.js'
import { stepAbort } from '../tools/tool-call-context.js'
import { ToolRegistry } from '../tools/tool-registry.js'
import { ToolScope } from '../tools/tool-scope.js'
import { AgentRuntime } from './agent-runtime.js'
import { RunCommit } from './run-commit.js'
import { RunEvents } from './run-events.js'
import { RunExecution, runExecutionDeps, runExecutionInit, type RunExecutionDeps, type RunExecutionStart } from './run-execution.js'
import { initialRunState } from './run-state.js'
import { SeqReservation } from './seq-reservation.js'
import { StepWriter } from './step-writer.js'

setFlagsFromString('--allow-natives-syntax')
setFlagsFromString('--expose-gc')
const collect = runInNewContext('gc') as () => void
const native = (body: string) => new Function('f', body) as (f: unknown) => number
const prepare = native('%PrepareFunctionForOptimization(f)')
const optimizeNext = native('%OptimizeFunctionOnNextCall(f)')
const status = native('return %GetOptimizationStatus(f)')
/** V8's "optimized by TurboFan" bit of %GetOptimizationStatus. */
const optimizedBit = 16
const optimized = (method: unknown) => (status(method) & optimizedBit) !== 0

const echo = defineTool({ name: 'echo', description: 'Echoes', inputSchema: z.object({ text: z.string() }), execute: ({ text }) => text })

function execution(): RunExecution {
  const deps = runExecutionDeps({
    stores: memoryStores(),
    policy: { maxSteps: 8, maxToolCalls: 32, maxLengthContinuations: 2, doomLoopThreshold: 3, budget: undefined },
  } as unknown as RunExecutionDeps)
  const registry = new ToolRegistry()
  registry.register(echo)
  const start = { state: initialRunState('run_1', 'ses_1', 1), agent: { name: 'a' }, scope: new ToolScope(registry, [['echo2', echo]]) }
  return new RunExecution(deps, runExecutionInit(start as unknown as RunExecutionStart))
}

describe('a run’s parts outlive a full GC without a keeper', () => {
  it('are object literals, every one of them (a class instance’s map dies with its last instance)', async () => {
    // Real runs first: a field whose representation a run changes would give the literal another map.
    const runtime = new AgentRuntime(new Extensions())
    for (let index = 0; index < 3; index++) {
      const model = mockModel([{ toolCalls: [{ name: 'echo', args: { text: 'hi' } }] }, { text: 'done' }])
      const output = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'go' })
      expect(output.finishReason).toBe('stop')
    }
    const built = execution()
    const parts: Record<string, object> = {
      execution: built,
      run: built.run,
      events: built.events,
      buffer: built.events.buffer,
      seqs: built.events.seqs,
      commit: built.commit,
      journal: built.journal,
      requests: built.requests,
      writer: built.run.writer,
      scope: built.run.init.scope,
      channel: eventChannel(),
      redaction: new StreamRedaction(createRedactor({ env: {} })),
      stepAbort: stepAbort(new AbortController().signal),
    }
    for (const [name, part] of Object.entries(parts)) expect([name, Object.getPrototypeOf(part)]).toEqual([name, Object.prototype])
  })

  it('code optimized against a run’s parts stays optimized after every run ended and a full GC ran', async () => {
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 4, maxToolCalls: 4 })
    const once = async () => {
      const model = mockModel((_request, index) => (index < 3 ? { toolCalls: [{ name: 'echo', args: { text: `hi ${index}` } }] } : { text: 'done' }), {
        recordCalls: false,
      })
      const output = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: 'go' })
      expect(output.finishReason).toBe('stop')
    }
    // Methods that touch only the run's parts (and the memory stores, alive with the runtime), run every step; not the
    // ones that read the model's answer (a mock model per run, whose own class instances die with the run).
    const methods = {
      'RunExecution.endModelStep': RunExecution.prototype.endModelStep,
      'RunCommit.appendWithNextCommit': RunCommit.prototype.appendWithNextCommit,
      'RunCommit.snapshot': RunCommit.prototype.snapshot,
      'RunEvents.deliver': RunEvents.prototype.deliver,
      'StepWriter.defer': StepWriter.prototype.defer,
      'StepWriter.commitNow': StepWriter.prototype.commitNow,
      'SeqReservation.reserve': SeqReservation.prototype.reserve,
      'ToolScope.get': ToolScope.prototype.get,
    }
    for (let index = 0; index < 5; index++) await once()
    for (const method of Object.values(methods)) prepare(method)
    await once()
    for (const method of Object.values(methods)) optimizeNext(method)
    await once()
    const names = Object.keys(methods) as Array<keyof typeof methods>
    expect(names.filter((name) => !optimized(methods[name]))).toEqual([])
    collect()
    // With a class instance among the parts, its map dies here and every method compiled against it is deoptimized.
    expect(names.filter((name) => !optimized(methods[name]))).toEqual([])
    await once()
  })
})
