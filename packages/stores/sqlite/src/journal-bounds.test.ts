// The runtime bounds the text the journal stores before any store sees it: a tool failing with a 100,000-character
// message leaves a record of at most maxJournalMessageLength characters in the SQLite file, read back after a reopen.
import { AgentRuntime, defineTool, Extensions, jsonSchema, mockModel } from '@spindle/core'
import { maxJournalMessageLength } from '@spindle/core/plugin-kit'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

describe('journal records on SQLite', () => {
  it('a tool error of 100,000 characters is stored bounded, with a marker saying how much was cut', async () => {
    const path = tempDatabasePath()
    const extensions = new Extensions().use(openStores({ path }))
    await extensions.ready()
    const runtime = new AgentRuntime(extensions)
    const host = 'h'.repeat(100_000)
    const lookup = defineTool({
      name: 'lookup',
      description: 'Resolves a host',
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      execute: () => {
        throw new Error(`the host ${host} could not be resolved`)
      },
    })
    const model = mockModel((request) =>
      request.messages.some((message) => message.role === 'tool') ? { text: 'no luck' } : { toolCalls: [{ name: 'lookup', args: {} }] },
    )
    const output = await runtime.run({ agent: { name: 'a', model, tools: { lookup } }, input: 'resolve it' })
    expect(output.text).toBe('no luck')
    await extensions.dispose()

    const reopened = openStores({ path })
    const [record] = await reopened.executions.listByRun(output.runId)
    expect(record!.status).toBe('failed')
    expect(record!.error!.message).toHaveLength(maxJournalMessageLength)
    expect(record!.error!.message.startsWith('the host hhh')).toBe(true)
    const full = `the host ${host} could not be resolved`.length
    expect(record!.error!.message).toMatch(new RegExp(`…\\[journal: [\\d,]+ of ${full.toLocaleString('en-US')} characters cut\\]$`))
  })
})
