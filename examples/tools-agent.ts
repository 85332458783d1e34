// Tools agent: reads a file, fetches a page from a loopback server (explicitly allowed past the SSRF
// guard), runs code in the QuickJS sandbox, and asks a human before writing. Offline, on a scripted model.
// Run it with `pnpm tsx --conditions=@spindle/source examples/tools-agent.ts`.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { AgentRuntime, Extensions, mockModel, type RunOutput } from '@spindle/core'
import { codeTool } from '@spindle/tools-code'
import { fileTools } from '@spindle/tools-fs'
import { webPage } from '@spindle/tools-web'

export interface ToolsAgentResult {
  /** The first run, suspended on the write. */
  suspended: RunOutput
  /** The run after the human approved and it resumed. */
  output: RunOutput
  /** What the agent wrote, read back from disk. */
  written: string
}

/** A local "price page", served on 127.0.0.1 only. */
async function startPriceServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8')
    response.end(
      '<html><head><title>Prices</title><script>track()</script></head><body><h1>Prices</h1><ul><li>Tea: 12</li><li>Cake: 30</li></ul></body></html>',
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/prices`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export async function main(log: (line: string) => void = console.log): Promise<ToolsAgentResult> {
  const root = await mkdtemp(path.join(tmpdir(), 'spindle-tools-agent-'))
  const prices = await startPriceServer()
  try {
    await writeFile(path.join(root, 'order.md'), '# Order\n- Tea\n- Cake\n')
    const files = fileTools({ root })
    const tools = {
      read_file: files.readFile,
      write_file: files.writeFile, // approval-gated by default
      // Loopback is blocked by default; this operator allows exactly the price server (127.0.0.1 on its port: an
      // allowHosts entry without a port allows only the scheme's default port).
      web_page: webPage({ allowHosts: [new URL(prices.url).host] }),
      run_code: codeTool({ timeLimitMs: 2000 }),
    }
    const model = mockModel(
      [
        { toolCalls: [{ name: 'read_file', args: { path: 'order.md' }, id: 'read-1' }] },
        { toolCalls: [{ name: 'web_page', args: { url: prices.url }, id: 'fetch-1' }] },
        {
          toolCalls: [
            { name: 'run_code', args: { code: 'const items = { Tea: 12, Cake: 30 }; Object.values(items).reduce((a, b) => a + b, 0)' }, id: 'code-1' },
          ],
        },
        { toolCalls: [{ name: 'write_file', args: { path: 'total.md', content: 'Order total: 42\n' }, id: 'write-1' }] },
        { text: 'The order (tea and cake) costs 42; I wrote it to total.md.' },
      ],
      { modelId: 'demo' },
    )
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 8 })
    const agent = { name: 'clerk', instructions: 'Use your tools; ask before writing.', model, tools }

    const stream = runtime.stream({ agent, input: 'What does my order cost? Save the total.' })
    for await (const event of stream) {
      if (event.type === 'tool.call') log(`→ ${event.toolName}(${JSON.stringify(event.args)})`)
      if (event.type === 'tool.result') log(`← ${JSON.stringify(event.result).slice(0, 120)}`)
      if (event.type === 'approval.requested') log(`? approval needed for ${event.toolName} (call ${event.callId})`)
    }
    const suspended = await stream.result
    log(`finish reason: ${suspended.finishReason}`)

    // A human looks at the pending write and approves it; the run then continues where it stopped.
    await runtime.approve(suspended.runId, 'write-1', { approved: true, reason: 'looks right' })
    log('✓ approved write-1')
    const output = await runtime.resume(suspended.runId)
    const written = await readFile(path.join(root, 'total.md'), 'utf8')
    log(`answer: ${output.text}`)
    log(`total.md: ${written.trim()}`)
    log(`finish reason: ${output.finishReason}`)
    return { suspended, output, written }
  } finally {
    await prices.close()
    await rm(root, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
