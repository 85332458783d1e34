// The recorder on a real AgentRuntime (memory stores, mockModel): it keeps the exact request of each step, tells the
// runs apart, and a recorder started later on the same folder (a restarted server) still has the calls.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentRuntime, defineTool, Extensions, memoryStores, mockModel } from '@spindle/core'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ModelCallRecorder } from './model-call-recorder.js'

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

const double = defineTool({
  name: 'double',
  description: 'Doubles a number',
  inputSchema: z.object({ value: z.number() }),
  idempotent: true,
  effect: 'read',
  execute: ({ value }) => value * 2,
})

describe('ModelCallRecorder', () => {
  it('records each step’s request as sent, per run, and keeps it across a restart', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'spindle-model-calls-'))
    folders.push(directory)
    const extensions = new Extensions().setStores(memoryStores())
    extensions.providers.registerModel(
      'test:model',
      mockModel((request) => (request.messages.at(-1)?.role === 'tool' ? { text: 'It is 42.' } : { toolCalls: [{ name: 'double', args: { value: 21 } }] }), {
        capabilities: { contextWindow: 10_000 },
      }),
    )
    const recorder = new ModelCallRecorder({ directory })
    recorder.install(extensions)
    const runtime = new AgentRuntime(extensions)
    const agent = { name: 'tester', instructions: 'Answer with the tool.', model: 'test:model', tools: { double } }
    const first = await runtime.run({ agent, input: 'Double 21' })
    const second = await runtime.run({ agent, input: 'Double 21 again' })

    const calls = recorder.forRun(first.runId)
    expect(calls.map((call) => [call.step, call.attempt])).toEqual([
      [1, 0],
      [2, 0],
    ])
    expect(calls[0]!.request.messages).toEqual([
      { role: 'system', content: 'Answer with the tool.' },
      { role: 'user', content: 'Double 21' },
    ])
    expect(calls[0]!.request.tools.map((tool) => tool.name)).toContain('double')
    // The runtime reuses its message array for the next step: the first call's copy did not grow.
    expect(calls[1]!.request.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool'])
    expect(calls[1]!.response.parts.find((part) => part.type === 'text-delta')).toEqual({ type: 'text-delta', delta: 'It is 42.' })
    expect(calls[1]!.composition.limit).toBe(10_000)
    expect(recorder.forRun(second.runId)[0]!.request.messages.at(-1)).toEqual({ role: 'user', content: 'Double 21 again' })

    const restarted = new ModelCallRecorder({ directory })
    expect(restarted.forRun(first.runId).map((call) => call.id)).toEqual(calls.map((call) => call.id))
    expect(restarted.forRun('../etc/passwd')).toEqual([])
  })
})
