// JSON text columns keep every UTF-16 code unit: a durable run whose values hold U+0000 and the halves of a split
// emoji reads back exactly from the file, after a reopen; ids with a lone surrogate are refused with a StoreError.
import { AgentRuntime, type AgentEvent, defineTool, Extensions, jsonSchema, mockModel, StoreError } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

describe('values SQLite text would change', () => {
  it('a run whose input, model text and tool result hold U+0000 and an emoji split across two deltas reads back exactly', async () => {
    const path = tempDatabasePath()
    const extensions = new Extensions().use(openStores({ path }))
    await extensions.ready()
    const runtime = new AgentRuntime(extensions)
    // mockModel streams text 8 UTF-16 units at a time: the emoji's halves end one delta and start the next.
    const said = 'reading😀 the file\u0000'
    const content = 'binary\u0000data \uD83D alone'
    const readFile = defineTool({
      name: 'read_file',
      description: 'Reads a file',
      inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
      idempotent: true,
      execute: ({ path }) => ({ path, content }),
    })
    const model = mockModel((request) =>
      request.messages.some((message) => message.role === 'tool')
        ? { text: 'done' }
        : { text: said, toolCalls: [{ name: 'read_file', args: { path: 'a\u0000b\uDE00' } }] },
    )
    const output = await runtime.run({ agent: { name: 'reader', tools: { read_file: readFile }, model }, sessionId: 's', input: 'read \u0000 it \uD83D' })
    expect([output.finishReason, output.error]).toEqual(['stop', undefined])
    await extensions.dispose()

    const reopened = openStores({ path })
    const messages = (await reopened.sessions.listEntries('s')).map((entry) => (entry.kind === 'message' ? entry.message : entry))
    expect(messages[0]).toEqual({ role: 'user', content: 'read \u0000 it \uD83D' })
    expect(messages[1]).toMatchObject({ role: 'assistant', content: expect.arrayContaining([{ type: 'text', text: said }]) })
    expect(messages[2]).toMatchObject({ role: 'tool', content: [expect.objectContaining({ result: { path: 'a\u0000b\uDE00', content } })] })
    expect((await reopened.executions.listByRun(output.runId))[0]).toMatchObject({
      args: { path: 'a\u0000b\uDE00' },
      result: { path: 'a\u0000b\uDE00', content },
    })
    const deltas = (await reopened.runs.listEvents(output.runId))
      .filter((event): event is Extract<AgentEvent, { type: 'text.delta' }> => event.type === 'text.delta' && event.step === 1)
      .map((event) => event.delta)
    expect(deltas[0]).toBe('reading\uD83D')
    expect(deltas.join('')).toBe(said)
    await expect(reopened.sessions.createSession({ id: 'id \uD83D' })).rejects.toBeInstanceOf(StoreError)
  })
})
