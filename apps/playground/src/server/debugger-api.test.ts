// The debugger's routes on a real server and SQLite file: model calls with the exact request, the run tree with a
// sub-run and a handoff, the run file, the agents panel's data (with no secret in it), and the session overview.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseRunFile } from '../replay/run-file.js'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'

let playground: TestPlayground

beforeAll(async () => {
  playground = await startTestPlayground()
})
afterAll(() => playground.stop())

async function completedRun(text: string, sessionId?: string): Promise<{ sessionId: string; runId: string }> {
  const started = await playground.call('POST', sessionId ? `/api/sessions/${sessionId}/messages` : '/api/messages', { text })
  expect(started.status).toBe(202)
  await playground.waitForRun(started.body.runId, (detail) => detail.run.status === 'completed')
  return { sessionId: started.body.sessionId, runId: started.body.runId }
}

describe('the debugger API', () => {
  it('records each model call: the messages as sent, the tool schemas, the settings, the raw parts and the window', async () => {
    const { runId } = await completedRun('What is 2 + 3?')
    const { status, body } = await playground.call('GET', `/api/runs/${runId}/model-calls`)
    expect(status).toBe(200)
    expect(body.calls.map((call: { step: number }) => call.step)).toEqual([1, 2])
    const [first, second] = body.calls
    expect(first.request.messages[0]).toMatchObject({ role: 'system' })
    expect(first.request.messages.at(-1)).toEqual({ role: 'user', content: 'What is 2 + 3?' })
    expect(first.request.tools.map((tool: { name: string }) => tool.name)).toContain('calculator')
    expect(first.request.settings.maxOutputTokens).toBeGreaterThan(0)
    expect(first.response.parts.some((part: { type: string; name?: string }) => part.type === 'tool-call-start' && part.name === 'calculator')).toBe(true)
    // The second call saw the tool's result: counted as its own part of the window.
    expect(second.request.messages.some((message: { role: string }) => message.role === 'tool')).toBe(true)
    const parts = Object.fromEntries(second.composition.parts.map((part: { kind: string; tokens: number }) => [part.kind, part.tokens]))
    expect(parts['tool-results']).toBeGreaterThan(0)
    expect(parts.system).toBeGreaterThan(0)
    expect(parts['tool-schemas']).toBeGreaterThan(0)
    expect(second.composition.limit).toBe(32_000)
    // Per message and per tool schema, adding up to the window's total.
    const perPart = [...second.composition.perMessage, ...second.composition.perTool].reduce((sum: number, count: number) => sum + count, 0)
    expect(perPart).toBe(second.composition.total)
    expect(second.composition.perMessage).toHaveLength(second.request.messages.length)
    expect(second.response.parts.find((part: { type: string }) => part.type === 'text-delta').delta).toBe('2 + 3 = 5')
  })

  it('shows an agent tool call with its sub-run nested under the calling step, and a handoff', async () => {
    const { runId } = await completedRun('delegate: what is 6 * 7')
    const { body } = await playground.call('GET', `/api/runs/${runId}/tree`)
    const call = body.tree.steps[0].calls[0]
    expect(call).toMatchObject({ toolName: 'ask_researcher', status: 'ok' })
    expect(call.subRun).toMatchObject({ agent: 'researcher', status: 'completed', parentRunId: runId })
    expect(call.subRun.steps[0].calls[0]).toMatchObject({ toolName: 'calculator', status: 'ok' })
    const handedOver = await completedRun('please hand over to the accountant')
    const tree = (await playground.call('GET', `/api/runs/${handedOver.runId}/tree`)).body.tree
    expect(tree.steps[0].handoffs).toEqual([expect.objectContaining({ from: 'playground', to: 'accountant' })])
  })

  it('exports a run file with events, snapshots, journal, messages, model calls and sub-runs', async () => {
    const { runId } = await completedRun('delegate: what is 5 * 5')
    const response = await playground.call('GET', `/api/runs/${runId}/export`)
    expect(response.status).toBe(200)
    const file = parseRunFile(JSON.stringify(response.body))
    expect(file.run.id).toBe(runId)
    expect(file.events.at(-1)?.type).toBe('run.finished')
    expect(file.snapshots.length).toBeGreaterThan(0)
    // The journal names a tool by its identity: an agent tool's is `agent.<name>`.
    expect(file.journal.map((call) => call.toolName)).toEqual(['agent.researcher'])
    expect(file.modelCalls).toHaveLength(2)
    expect(file.subRuns.map((sub) => sub.run.request.parentRunId)).toEqual([runId])
    expect(() => parseRunFile('{"format":"other"}')).toThrow(/not a run file/)
  })

  it('describes the agents, tools, policy, stores and providers', async () => {
    const { body } = await playground.call('GET', '/api/agents')
    expect(body.agents.map((agent: { name: string }) => agent.name)).toEqual(['playground', 'researcher', 'accountant'])
    const tools = Object.fromEntries(body.agents[0].tools.map((tool: { name: string }) => [tool.name, tool]))
    expect(tools.delete_file).toMatchObject({ effect: 'irreversible', approval: 'always' })
    expect(tools.calculator.inputSchema.properties.expression.type).toBe('string')
    expect(tools.ask_researcher.agent).toEqual({ name: 'researcher', kind: 'sub-run' })
    expect(tools.transfer_to_accountant.agent).toEqual({ name: 'accountant', kind: 'handoff' })
    expect(body.policy.maxSteps).toBe(8)
    expect(body.store.kind).toBe('sqlite')
    expect(body.providers[0]).toMatchObject({ id: 'demo:scripted', provider: 'demo' })
  })

  it('never sends a key, token or connection string in the agents description', async () => {
    const secrets = { openai: 'sk-openai-SECRET-1234567890', anthropic: 'sk-ant-SECRET-0987654321', token: 'playground-token-SECRET-42' }
    const withKeys = await startTestPlayground({
      token: secrets.token,
      openai: { apiKey: secrets.openai, baseURL: 'http://127.0.0.1:9/v1', model: 'nowhere' },
      anthropic: { apiKey: secrets.anthropic, model: 'claude-sonnet-4-5' },
    })
    try {
      const { status, body } = await withKeys.call('GET', '/api/agents')
      expect(status).toBe(200)
      expect(body.providers.map((provider: { id: string }) => provider.id)).toEqual(['demo:scripted', 'compatible:nowhere', 'anthropic:claude-sonnet-4-5'])
      const text = JSON.stringify(body)
      for (const secret of Object.values(secrets)) expect(text).not.toContain(secret)
      expect(text).not.toMatch(/SECRET|apiKey|127\.0\.0\.1:9/)
    } finally {
      await withKeys.stop()
    }
  })

  it('sums a session: tokens, cost and steps per run, and each tool call latency', async () => {
    const first = await completedRun('What is 1 + 1?')
    await completedRun('list my notes', first.sessionId)
    const { body } = await playground.call('GET', `/api/sessions/${first.sessionId}/overview`)
    expect(body.runs).toHaveLength(2)
    expect(body.runs.map((run: { steps: number }) => run.steps)).toEqual([2, 2])
    expect(body.tools.map((tool: { toolName: string }) => tool.toolName)).toEqual(['calculator', 'notes'])
    expect(body.totals.inputTokens).toBe(body.runs[0].inputTokens + body.runs[1].inputTokens)
    expect(body.totals.costUsd).toBeGreaterThan(0)
    expect((await playground.call('GET', '/api/sessions/nope/overview')).status).toBe(404)
  })
})
