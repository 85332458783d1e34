// A run exported from the playground replays offline with mockModel: the way to turn a bad production run into a
// regression test (README, "Turn a bad run into a regression test"). The fixture is a file exported with the event
// log's "Export run" button: the main agent delegated a question to the researcher sub-agent.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'
import { parseRunFile } from './run-file.js'
import { recordedTurns, replayRunFile } from './replay-run-file.js'

const fixture = parseRunFile(readFileSync(join(import.meta.dirname, '__fixtures__', 'delegate-run.run.json'), 'utf8'))
const recordedText = (events: typeof fixture.events) => events.findLast((event) => event.type === 'run.finished')
const finishedText = (file: typeof fixture) => {
  const finished = recordedText(file.events)
  return finished?.type === 'run.finished' ? finished.text : undefined
}

describe('replaying an exported run file offline', () => {
  it('reaches the recorded answer with the recorded tool calls, and sends the model the recorded input', async () => {
    const { output, toolCalls, model } = await replayRunFile(fixture)
    expect(output.finishReason).toBe('stop')
    expect(output.text).toBe(finishedText(fixture))
    expect(output.text).toContain('6 * 7 = 42')
    expect(toolCalls).toEqual([{ step: 1, toolName: 'ask_researcher', args: { prompt: 'what is 6 * 7' } }])
    expect(model.calls[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'delegate: what is 6 * 7' })
    expect(model.calls[0]!.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('You are the assistant of the Spindle playground') })
    // The second request carries the recorded tool result, as the original run's did.
    expect(JSON.stringify(model.calls[1]!.messages.at(-1))).toContain('6 * 7 = 42')
  })

  it('lets a test change one step: a regression test pins what the agent must do with another answer', async () => {
    const { output } = await replayRunFile(fixture, { turns: { 2: { text: 'I could not reach the researcher.' } } })
    expect(output.text).toBe('I could not reach the researcher.')
    expect(recordedTurns(fixture)).toHaveLength(2)
  })
})

describe('a run exported by a live playground replays the same', () => {
  let playground: TestPlayground
  beforeAll(async () => {
    playground = await startTestPlayground()
  })
  afterAll(() => playground.stop())

  it('exports a finished run and replays it to the same answer and tool calls', async () => {
    const started = await playground.call('POST', '/api/messages', { text: 'What is 12 * (3 + 4)?' })
    await playground.waitForRun(started.body.runId, (detail) => detail.run.status === 'completed')
    const exported = await playground.call('GET', `/api/runs/${started.body.runId}/export`)
    expect(exported.status).toBe(200)
    const file = parseRunFile(JSON.stringify(exported.body))
    const { output, toolCalls, model } = await replayRunFile(file)
    expect(output.text).toBe('12 * (3 + 4) = 84')
    expect(toolCalls).toEqual([{ step: 1, toolName: 'calculator', args: { expression: '12 * (3 + 4)' } }])
    // The replay asked the model as often as the run did, with the same question.
    expect(model.calls).toHaveLength(file.modelCalls.length)
    expect(model.calls[0]!.messages.at(-1)).toEqual(file.modelCalls[0]!.request.messages.at(-1))
  })
})
