// Test helper: `src/main.ts` (what `pnpm playground` starts) in a child process, to kill it or stop it with a signal.
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { appRoot } from '../server/config.js'

export interface ChildPlayground {
  child: ChildProcess
  origin: string
  /** The access token (open `${origin}/?token=${token}` in a browser). */
  token: string
  /** Calls the API with the Bearer token. */
  call<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>
  /** Resolves with the exit code and signal once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Everything the process printed. */
  output(): string
}

/** Starts the playground on a free port with `env` added to this process's environment. */
export async function startChildPlayground(options: { dataDir: string; env?: Record<string, string>; timeoutMs?: number }): Promise<ChildPlayground> {
  const token = 'child-playground-token'
  const child = spawn(process.execPath, ['--conditions=@spindle/source', '--import', 'tsx', join(appRoot, 'src', 'main.ts')], {
    cwd: appRoot,
    // SQLite in the data folder unless `env` says otherwise: a DATABASE_URL inherited from CI would put the child on
    // PostgreSQL while the test reads the data folder.
    env: { ...process.env, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', SPINDLE_DATA_DIR: options.dataDir, PLAYGROUND_TOKEN: token, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const deadline = Date.now() + (options.timeoutMs ?? 20_000)
  let origin: string | undefined
  while (!origin) {
    origin = output.match(/Open (http:\/\/127\.0\.0\.1:\d+)\//)?.[1]
    if (origin) break
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`[spindle/playground] the child playground did not start:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const base = origin
  return {
    child,
    origin: base,
    token,
    exited,
    output: () => output,
    async call(method, path, body) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await response.text()
      return { status: response.status, body: text ? JSON.parse(text) : undefined }
    },
  }
}
