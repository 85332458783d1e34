// The playground's configuration: from the environment for `pnpm playground`, explicit in tests.
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { ConfigurationError } from '@spindle/core'

export interface PlaygroundConfig {
  host: string
  /** 0 picks a free port. */
  port: number
  /** Holds the SQLite file, the notes and the sandbox folder. */
  dataDir: string
  /** PostgreSQL stores when set; SQLite in `dataDir` otherwise. */
  databaseUrl?: string
  /** PostgreSQL schema for Spindle's tables (default `spindle`). */
  databaseSchema?: string
  /** The access token; random when absent. */
  token?: string
  /** Folder of the built web UI. */
  webDir: string
  demo: { chunkDelayMs: number }
  /**
   * How long a run's lease lasts without a heartbeat (default 15 s): a run left `running` by a process that died is
   * shown `interrupted`, ready to resume, this long after the process's last heartbeat.
   */
  leaseMs?: number
  openai?: { apiKey?: string; baseURL?: string; model: string }
  anthropic?: { apiKey: string; model: string }
}

/** The playground's folder (the nearest one with a package.json): the same from src/server and dist/server/server. */
export const appRoot = packageRoot(import.meta.dirname)

function packageRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return resolve(from, '../..')
  }
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): PlaygroundConfig {
  const openaiKey = env.OPENAI_API_KEY || undefined
  const openaiBase = env.OPENAI_BASE_URL || undefined
  return {
    host: env.HOST || '127.0.0.1',
    port: env.PORT ? Number(env.PORT) : 4477,
    dataDir: resolve(env.SPINDLE_DATA_DIR || join(appRoot, '.data')),
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.SPINDLE_PG_SCHEMA || undefined,
    token: env.PLAYGROUND_TOKEN || undefined,
    webDir: join(appRoot, 'dist', 'web'),
    demo: { chunkDelayMs: env.DEMO_CHUNK_DELAY_MS ? Number(env.DEMO_CHUNK_DELAY_MS) : 15 },
    ...(env.SPINDLE_LEASE_MS ? { leaseMs: positiveInteger('SPINDLE_LEASE_MS', env.SPINDLE_LEASE_MS) } : {}),
    ...(openaiKey || openaiBase
      ? { openai: { apiKey: openaiKey, baseURL: openaiBase, model: env.OPENAI_MODEL || (openaiBase ? 'llama3.2' : 'gpt-4.1-mini') } }
      : {}),
    ...(env.ANTHROPIC_API_KEY ? { anthropic: { apiKey: env.ANTHROPIC_API_KEY, model: env.ANTHROPIC_MODEL || 'claude-sonnet-4-5' } } : {}),
  }
}

function positiveInteger(name: string, value: string): number {
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new ConfigurationError(`[spindle/playground] ${name} must be a positive whole number of milliseconds (got "${value}")`)
  return parsed
}
