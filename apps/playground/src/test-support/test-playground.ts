// Test helpers: a playground on a free port with a temp data folder (a real SQLite file), and a small client.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PlaygroundConfig } from '../server/config.js'
import { appRoot } from '../server/config.js'
import { startPlayground, type Playground } from '../server/create-playground.js'

export interface TestPlayground extends Playground {
  dataDir: string
  origin: string
  /** Calls the API with the Bearer token and our Origin. */
  call<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T }>
  /** Polls a run until `predicate` holds (or fails after `timeoutMs`). */
  waitForRun(runId: string, predicate: (detail: any) => boolean, timeoutMs?: number): Promise<any>
  stop(): Promise<void>
}

export async function startTestPlayground(overrides: Partial<PlaygroundConfig> = {}): Promise<TestPlayground> {
  const dataDir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'spindle-playground-'))
  const playground = await startPlayground({
    host: '127.0.0.1',
    port: 0,
    webDir: join(appRoot, 'dist', 'web'),
    demo: { chunkDelayMs: 2 },
    ...overrides,
    dataDir,
  })
  const origin = `http://127.0.0.1:${playground.port}`
  const call: TestPlayground['call'] = async (method, path, body, headers = {}) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${playground.token}`, origin, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text }
  }
  return {
    ...playground,
    dataDir,
    origin,
    call,
    async waitForRun(runId, predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const { body } = await call('GET', `/api/runs/${runId}`)
        if (predicate(body)) return body
        if (Date.now() > deadline) throw new Error(`run ${runId} did not reach the expected state; last status ${body?.run?.status}`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
    async stop() {
      await playground.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Reads an SSE response until `until` returns true for a parsed message (or the time runs out). */
export async function readSse(response: Response, until: (message: { id?: string; event?: string; data: any }) => boolean, timeoutMs = 10_000) {
  const messages: Array<{ id?: string; event?: string; data: any }> = []
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  const timer = setTimeout(() => void reader.cancel(), timeoutMs)
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += value
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const message: { id?: string; event?: string; data: any } = { data: undefined }
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':')
          const field = line.slice(0, colon)
          const value = line.slice(colon + 1).replace(/^ /, '')
          if (field === 'id') message.id = value
          else if (field === 'event') message.event = value
          else if (field === 'data') message.data = JSON.parse(value)
        }
        messages.push(message)
        if (until(message)) return messages
      }
    }
  } finally {
    clearTimeout(timer)
    await reader.cancel().catch(() => {})
  }
  return messages
}
