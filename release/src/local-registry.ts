// A throwaway Verdaccio on 127.0.0.1: temp storage, @spindle/* served only from what is published to it, every other
// package proxied from the registry npm is configured with on this machine.
import { spawn, type ChildProcess, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** A running local registry. */
export interface LocalRegistry {
  url: string
  /** An npmrc with the registry and a publish token for it. */
  npmrc: string
  /** What Verdaccio printed (for failures). */
  log(): string
  close(): Promise<void>
}

/** Starts Verdaccio (the 6.8 line, the last that runs on Node 20) and registers a throwaway publisher. */
export async function startLocalRegistry(): Promise<LocalRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'spindle-registry-'))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const upstream = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim()
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      `storage: ${join(dir, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(dir, 'htpasswd')}`,
      '    max_users: 10',
      'uplinks:',
      '  upstream:',
      `    url: ${upstream}`,
      '    timeout: 60s',
      '    maxage: 30m',
      'packages:',
      "  '@spindle/*':",
      '    access: $all',
      '    publish: $authenticated',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    proxy: upstream',
      'server:',
      '  keepAliveTimeout: 60',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  )
  const bin = join(dirname(createRequire(import.meta.url).resolve('verdaccio/package.json')), 'bin', 'verdaccio')
  let output = ''
  const child: ChildProcess = spawn(process.execPath, [bin, '--config', join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitFor(`${url}/-/ping`, 60_000, () => output)
    const token = await addUser(url)
    const npmrc = join(dir, 'npmrc')
    writeFileSync(npmrc, `registry=${url}/\n//127.0.0.1:${port}/:_authToken=${token}\n`)
    return { url, npmrc, log: () => output, close: stop }
  } catch (error) {
    await stop()
    throw error
  }
}

async function addUser(url: string): Promise<string> {
  const name = 'spindle-release-check'
  const response = await fetch(`${url}/-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: `pw-${process.pid}-${Date.now()}`, type: 'user', roles: [], date: new Date().toISOString() }),
  })
  const body = (await response.json()) as { token?: string; error?: string }
  if (!response.ok || !body.token) throw new Error(`the local registry refused the publisher: ${response.status} ${JSON.stringify(body)}`)
  return body.token
}

async function waitFor(url: string, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`Verdaccio did not answer ${url} within ${timeoutMs} ms:\n${log()}`)
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}
