// Edit and replay, retry and the diffs, through the HTTP API on a real playground (SQLite, the demo model).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'
import { planReplay } from './replay-entries.js'
import { diffValues } from './state-diff.js'

let playground: TestPlayground

beforeAll(async () => {
  // A second model that never answers (port 9 refuses connections): its runs fail.
  playground = await startTestPlayground({ openai: { baseURL: 'http://127.0.0.1:9/v1', model: 'nowhere' } })
})
afterAll(() => playground.stop())

const finished = (detail: any) => !['running', 'queued'].includes(detail.run.status)

async function completedRun(text: string) {
  const started = await playground.call('POST', '/api/messages', { text })
  return playground.waitForRun(started.body.runId, finished)
}

describe('edit and replay', () => {
  it('replays from the snapshot before the model call with the user message rewritten: the new run answers the new question', async () => {
    const source = await completedRun('What is 2 + 3?')
    const entries = (await playground.call('GET', `/api/runs/${source.run.id}/snapshots/0/entries`)).body
    expect(entries.entries.map((entry: any) => entry.message.role)).toEqual(['user'])
    const replay = await playground.call('POST', `/api/runs/${source.run.id}/replay`, {
      version: 0,
      edits: { messages: [{ seq: entries.entries[0].seq, text: 'What is 2 + 5?' }] },
    })
    expect(replay.status).toBe(201)
    const run = await playground.waitForRun(replay.body.runId, finished)
    expect(run.run.status).toBe('completed')
    expect(run.events.at(-1).text).toBe('2 + 5 = 7')
    // The source is untouched.
    const original = (await playground.call('GET', `/api/sessions/${source.run.sessionId}/messages`)).body.entries
    expect(original[0].message.content).toBe('What is 2 + 3?')
  })

  it('replays after the tool step with its result replaced: the model answers from the new result, the tool does not run again', async () => {
    const source = await completedRun('What is 6 * 7?')
    const afterTools = source.snapshots.find((snapshot: any) => snapshot.state.step === 1)
    const callId = source.events.find((event: any) => event.type === 'tool.call').callId
    const replay = await playground.call('POST', `/api/runs/${source.run.id}/replay`, {
      version: afterTools.version,
      edits: { toolResults: [{ callId, result: { expression: '6 * 7', value: 41 } }] },
    })
    const run = await playground.waitForRun(replay.body.runId, finished)
    expect(run.events.at(-1).text).toBe('6 * 7 = 41')
    expect(run.journal).toEqual([])
  })

  it('replays with another runtime state: the tools read the edited RuntimeStore', async () => {
    const source = await completedRun('Show the runtime state')
    expect(source.events.at(-1).text).toContain('"plan":"free"')
    const replay = await playground.call('POST', `/api/runs/${source.run.id}/replay`, { version: 0, runtimeState: { user: { name: 'Ada', plan: 'pro' } } })
    const run = await playground.waitForRun(replay.body.runId, finished)
    expect(run.events.at(-1).text).toBe('The runtime state holds: user = {"name":"Ada","plan":"pro"}.')
    const diff = (await playground.call('GET', `/api/sessions/${replay.body.sessionId}/fork-diff`)).body
    expect(diff.runtimeState).toEqual([
      { path: 'user.plan', kind: 'changed', before: 'free', after: 'pro' },
      { path: 'locale', kind: 'removed', before: 'en-GB' },
    ])
  })

  it('refuses an edit that names nothing before the snapshot (400), and creates nothing', async () => {
    const source = await completedRun('What is 1 + 1?')
    const before = (await playground.call('GET', '/api/sessions?limit=500')).body.sessions.length
    const replay = await playground.call('POST', `/api/runs/${source.run.id}/replay`, { version: 0, edits: { toolResults: [{ callId: 'nope', result: 1 }] } })
    expect(replay.status).toBe(400)
    expect(replay.body.error.message).toContain('tool call nope')
    expect((await playground.call('GET', '/api/sessions?limit=500')).body.sessions.length).toBe(before)
  })
})

describe('retry a failed run', () => {
  it("starts a new run from the failed run's last good snapshot, with the model picked; a run that did not fail is refused", async () => {
    const started = await playground.call('POST', '/api/messages', { text: 'What is 9 * 9?', model: 'compatible:nowhere' })
    const failed = await playground.waitForRun(started.body.runId, finished, 20_000)
    expect(failed.run.status).toBe('failed')
    const retry = await playground.call('POST', `/api/runs/${failed.run.id}/retry`, { model: 'demo:scripted' })
    expect(retry.status).toBe(201)
    const run = await playground.waitForRun(retry.body.runId, finished)
    expect(run.run).toMatchObject({ status: 'completed', model: 'demo:scripted' })
    expect(run.events.at(-1).text).toBe('9 * 9 = 81')
    const messages = (await playground.call('GET', `/api/sessions/${retry.body.sessionId}/messages`)).body.entries
    expect(messages.filter((entry: any) => entry.message.role === 'user').map((entry: any) => entry.message.content)).toEqual(['What is 9 * 9?'])
    expect((await playground.call('POST', `/api/runs/${run.run.id}/retry`, {})).status).toBe(409)
  })
})

describe('diffs', () => {
  it('two snapshots: the state fields that changed and the log entries written between them', async () => {
    const source = await completedRun('What is 3 * 3?')
    const [first, , last] = source.snapshots
    const diff = (await playground.call('GET', `/api/runs/${source.run.id}/snapshots/diff?from=${first.version}&to=${last.version}`)).body
    expect(diff.state).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'step', before: 0, after: 2 }), expect.objectContaining({ path: 'phase', after: 'done' })]),
    )
    expect(diff.entries.map((entry: any) => entry.role)).toEqual(['assistant', 'tool', 'assistant'])
    expect(diff.entries.at(-1).text).toBe('3 * 3 = 9')
  })

  it("a fork beside its parent: the copied part the same, then each one's own entries", async () => {
    const source = await completedRun('What is 4 * 4?')
    const forked = await playground.call('POST', `/api/runs/${source.run.id}/fork`, { version: 0 })
    const diff = (await playground.call('GET', `/api/sessions/${forked.body.sessionId}/fork-diff`)).body
    expect(diff.parent).toMatchObject({ sessionId: source.run.sessionId, runId: source.run.id, version: 0 })
    expect(diff.rows.map((row: any) => row.kind)).toEqual(['same', 'parent', 'parent', 'parent'])
    expect((await playground.call('GET', `/api/sessions/${source.run.sessionId}/fork-diff`)).status).toBe(404)
  })

  it("diffValues names each changed path; planReplay drops a finished run's answer so that the model answers again", () => {
    expect(diffValues({ a: 1, b: [1, 2] }, { a: 2, b: [1], c: true })).toEqual([
      { path: 'a', kind: 'changed', before: 1, after: 2 },
      { path: 'b[1]', kind: 'removed', before: 2 },
      { path: 'c', kind: 'added', after: true },
    ])
    const entry = (seq: number, message: any) => ({ kind: 'message' as const, seq, sessionId: 's', runId: 'r', createdAt: 0, message })
    const plan = planReplay([entry(1, { role: 'user', content: 'hi' }), entry(2, { role: 'assistant', content: [{ type: 'text', text: 'hello' }] })], 1)
    expect(plan).toMatchObject({ history: [], input: [{ role: 'user', content: 'hi' }], droppedAnswer: true })
  })
})
