// The registry round trip: every published package goes to a local Verdaccio, then a fresh npm project outside the
// workspace installs core, store-sqlite, openai, testing and zod from it with plain npm, type-checks a program with
// skipLibCheck off and no @types of its own, and runs it (an agent with a tool on SQLite that survives reopening the
// file, through the OpenAI provider against the loopback server of @spindle/testing).
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { startLocalRegistry, type LocalRegistry } from './local-registry.js'
import { readPacked, repositoryRoot, type PackedPackage } from './published-packages.js'

const scratch = mkdtempSync(join(tmpdir(), 'spindle-round-trip-'))
const consumer = join(scratch, 'consumer')
let registry: LocalRegistry
const packed: PackedPackage[] = readPacked(inject('packedDir'))

/**
 * Runs a command as a user's shell would: without the npm_config_* variables pnpm sets for its scripts, and with a
 * deadline (a synchronous child is not stopped by the test's own timeout).
 */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): string {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_(config|package|lifecycle)_/i.test(name)))
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      env: { ...clean, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
      timeout: timeoutMs,
    })
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${failed.stdout ?? ''}\n${failed.stderr ?? failed.message}`)
  }
}

/**
 * better-sqlite3 compiles from source here (no prebuilt download is reachable): node-gyp gets this Node's own headers,
 * and -O0 (after the addon's -O3 on the compiler line, so it wins) makes the compile of SQLite a few times faster;
 * the install path is the one a user's npm takes, only the optimization level differs.
 */
function nativeBuildEnv(): NodeJS.ProcessEnv {
  const prefix = dirname(dirname(process.execPath))
  const headers = existsSync(join(prefix, 'include', 'node', 'node.h')) ? { npm_config_nodedir: prefix } : {}
  return { ...headers, CFLAGS: '-O0', CXXFLAGS: '-O0' }
}

beforeAll(async () => {
  registry = await startLocalRegistry()
}, 120_000)

afterAll(async () => {
  await registry?.close()
  rmSync(scratch, { recursive: true, force: true })
})

describe('a stranger installs Spindle from a registry', () => {
  it('every package publishes to the local registry, with no workspace: or link: range in what the registry serves', () => {
    for (const pkg of packed) {
      run('npm', ['publish', pkg.tarball, '--registry', `${registry.url}/`, '--userconfig', registry.npmrc, '--access', 'public', '--ignore-scripts'], scratch)
    }
    for (const pkg of packed) {
      const served = run('npm', ['view', `${pkg.name}@${pkg.version}`, '--json', '--registry', `${registry.url}/`], scratch)
      expect(JSON.parse(served), `${pkg.name}@${pkg.version} on the local registry`).toMatchObject({ name: pkg.name, version: pkg.version })
      expect(served).not.toMatch(/"(workspace|link):/)
    }
  })

  it('npm installs core, store-sqlite, openai, testing and zod outside the workspace, one copy each of core and zod', { timeout: 600_000 }, () => {
    expect(consumer.startsWith(repositoryRoot)).toBe(false)
    run('mkdir', ['-p', consumer], scratch)
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'spindle-consumer', private: true, type: 'module' }, null, 2))
    const core = packed.find((pkg) => pkg.name === '@spindle/core')!
    run(
      'npm',
      [
        'install',
        `@spindle/core@${core.version}`,
        '@spindle/store-sqlite',
        '@spindle/openai',
        '@spindle/testing',
        'zod@^4',
        'typescript@~5.9.3',
        '--registry',
        `${registry.url}/`,
        '--no-audit',
        '--no-fund',
        '--prefer-online',
        '--loglevel',
        'error',
      ],
      consumer,
      nativeBuildEnv(),
      600_000,
    )
    for (const name of ['@spindle/core', 'zod']) {
      const copies = run('npm', ['ls', name, '--all', '--parseable'], consumer).split('\n').filter(Boolean)
      expect(copies, `copies of ${name} in the consumer`).toHaveLength(1)
    }
    const installed = JSON.parse(readFileSync(join(consumer, 'node_modules', '@spindle', 'core', 'package.json'), 'utf8'))
    expect(installed.version).toBe(core.version)
  })

  it('type-checks a strict nodenext program with skipLibCheck off and no @types of its own, then runs it', () => {
    copyFileSync(join(import.meta.dirname, 'consumer', 'main.ts'), join(consumer, 'main.ts'))
    copyFileSync(join(import.meta.dirname, 'consumer', 'tsconfig.json'), join(consumer, 'tsconfig.json'))
    run(join(consumer, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], consumer, {}, 180_000)
    const result = JSON.parse(run(process.execPath, ['dist/main.js'], consumer).trim().split('\n').at(-1)!)
    expect(result).toEqual({
      first: { finishReason: 'stop', text: '2 + 3 = 5', steps: 2 },
      second: { finishReason: 'stop', text: 'Still 5.', sessionId: true },
      executions: 1,
      journal: ['succeeded'],
      entries: expect.any(Number),
      secondRequestHasHistory: true,
      refused: 'configuration',
      batched: true,
    })
    expect(result.entries).toBeGreaterThanOrEqual(6)
  })
})
