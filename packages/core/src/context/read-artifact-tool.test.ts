import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, MemoryArtifactStore, mockModel, readArtifactTool, type ToolExecutionContext } from '../index.js'

function context(artifacts: MemoryArtifactStore): ToolExecutionContext {
  return {
    runId: 'run_1',
    sessionId: 'ses_1',
    step: 1,
    callId: 'call_1',
    toolName: 'read_artifact',
    idempotencyKey: 'run_1:1:call_1',
    signal: new AbortController().signal,
    runtime: undefined,
    artifacts,
  }
}

const lines = Array.from({ length: 1_000 }, (_, index) => `line ${index + 1}: ${'x'.repeat(20)}`).join('\n')

describe('readArtifactTool', () => {
  it('reads a bounded byte range and says where it sits and what comes next', async () => {
    const artifacts = new MemoryArtifactStore()
    const record = await artifacts.put(lines, { mediaType: 'text/plain' })
    const tool = readArtifactTool({ maxBytes: 100 })
    const first = await tool.execute({ id: record.id, start: 0, end: 10_000 }, context(artifacts))
    expect(first).toContain(`bytes 0-100 of ${record.size}`)
    expect(first).toContain('line 1: xxx')
    expect(first).toContain('[more: read_artifact with start=100]')
    const last = await tool.execute({ id: record.id, start: record.size - 40 }, context(artifacts))
    expect(last).toContain(`bytes ${record.size - 40}-${record.size} of ${record.size}`)
    expect(last).toContain('line 1000')
    expect(last).toContain('[end of artifact]')
  })

  it('never cuts a multi-byte character in half', async () => {
    const artifacts = new MemoryArtifactStore()
    const record = await artifacts.put('é'.repeat(200))
    const text = await readArtifactTool({ maxBytes: 101 }).execute({ id: record.id }, context(artifacts))
    expect(text).toContain('bytes 0-100 of 400')
    expect(text).not.toContain('\uFFFD')
    expect(text.split('\n')[1]).toBe('é'.repeat(50))
  })

  it('reads a line range, bounded by maxLines, stopping early in the stream', async () => {
    const artifacts = new MemoryArtifactStore()
    const record = await artifacts.put(lines)
    const tool = readArtifactTool({ maxLines: 3 })
    const text = await tool.execute({ id: record.id, startLine: 500, endLine: 900 }, context(artifacts))
    const body = text.split('\n')
    expect(body[0]).toContain('lines 500-502')
    expect(body.slice(1, 4)).toEqual([`line 500: ${'x'.repeat(20)}`, `line 501: ${'x'.repeat(20)}`, `line 502: ${'x'.repeat(20)}`])
    expect(body[4]).toBe('[more: read_artifact with startLine=503]')
    const tail = await tool.execute({ id: record.id, startLine: 999 }, context(artifacts))
    expect(tail).toContain('lines 999-1000')
    expect(tail).toContain('[end of artifact]')
  })

  it('clips one overlong line and points to byte mode', async () => {
    const artifacts = new MemoryArtifactStore()
    const record = await artifacts.put('y'.repeat(5_000))
    const text = await readArtifactTool({ maxBytes: 200 }).execute({ id: record.id, startLine: 1 }, context(artifacts))
    expect(text).toContain('was clipped')
    expect(text.length).toBeLessThan(600)
  })

  it('an unknown id fails with a message naming what to do', async () => {
    const artifacts = new MemoryArtifactStore()
    await expect(readArtifactTool().execute({ id: 'nope' }, context(artifacts))).rejects.toThrow(/no artifact "nope"/)
  })

  it('end to end: the model follows the truncation marker of an oversized tool output', async () => {
    const big = defineTool({
      name: 'dump',
      description: 'd',
      inputSchema: z.object({}),
      execute: () => `HEAD ${'m'.repeat(4_000)} NEEDLE-42 ${'n'.repeat(4_000)} TAIL`,
    })
    let artifactId = ''
    const model = mockModel((request, index) => {
      if (index === 0) return { toolCalls: [{ name: 'dump', args: {} }] }
      if (index === 1) {
        const marker = JSON.stringify(request.messages.at(-1))
        artifactId = /artifact ([0-9a-f]{64})/.exec(marker)?.[1] ?? ''
        return { toolCalls: [{ name: 'read_artifact', args: { id: artifactId, start: 4_000, end: 4_020 } }] }
      }
      return { text: 'found it' }
    })
    const runtime = new AgentRuntime(new Extensions(), { maxToolOutputBytes: 1_000 })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { dump: big, read_artifact: readArtifactTool() } }, input: 'find the needle' })
    expect(output.text).toBe('found it')
    expect(artifactId).toMatch(/^[0-9a-f]{64}$/)
    const readBack = JSON.stringify(model.calls[2]?.messages.at(-1))
    expect(readBack).toContain('NEEDLE-42')
    expect(readBack).toContain('bytes 4000-4020')
  })
})
