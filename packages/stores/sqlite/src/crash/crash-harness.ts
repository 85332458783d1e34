// The crash test's parent: starts child processes on one SQLite file and SIGKILLs each at a seeded point
// (a freeze point the child announces, or a random moment), until a child finishes every task.
import { spawn } from 'node:child_process'
import { appendFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createRandom } from './crash-workload.js'
import { type ChildConfig, type FreezePoint, occurrencesPerTask } from './freeze-points.js'

const childPath = fileURLToPath(new URL('./crash-child.ts', import.meta.url))
const packageDirectory = fileURLToPath(new URL('../..', import.meta.url))

export interface CrashCampaignOptions {
  databasePath: string
  ledgerPath: string
  /** Every event a live subscriber in each child saw (one JSON line each, every life, killed ones included). */
  livePath: string
  seed: number
  runs: number
  /** Share of lives killed at a random moment instead of at a freeze point. Default 0.25. */
  randomKillShare?: number
  /** Run the children on the unmodified default session gate (see `ChildConfig.defaultGate`). */
  defaultGate?: boolean
  log?: (line: string) => void
}

export interface CrashCampaignReport {
  seed: number
  runs: number
  lives: number
  kills: number
  /** Kills by where they landed: a freeze point, or `random:<what the child was doing>`. */
  killPoints: Record<string, number>
  /** Lives started under a new owner id, which had to wait for the dead owner's leases to expire. */
  newOwnerLives: number
  /** Planned freezes the child never reached (it finished first). */
  unreachedFreezes: number
  /** StoreBatch writes of the life that finished, and the store writes in them (0 when the kernel wrote one by one). */
  finalLifeBatches: number
  finalLifeBatchedWrites: number
  durationMs: number
}

interface LifeResult {
  killedAt?: string
  finished: boolean
  /** From the child's `BATCHES <batches> <writes>` line. */
  batches: { batches: number; writes: number }
  stderr: string
  code: number | null
  signal: NodeJS.Signals | null
}

/** What a randomly killed child was doing, from the last event it announced. */
function activity(lastLine: string | undefined): string {
  if (!lastLine || lastLine === 'READY') return 'startup-or-recovery'
  const type = (JSON.parse(lastLine.replace(/^EVENT /, '')) as { type: string }).type
  if (type === 'step.started' || type === 'text.delta' || type === 'reasoning.delta' || type === 'run.resumed') return 'model-stream'
  if (type === 'tool.started' || type === 'tool.call') return 'tool'
  return 'between-steps'
}

function runLife(config: ChildConfig, randomKillMs: number | undefined, livePath: string): Promise<LifeResult> {
  appendFileSync(livePath, 'LIFE\n')
  const child = spawn(process.execPath, ['--conditions=@spindle/source', '--import', 'tsx', childPath, JSON.stringify(config)], {
    cwd: packageDirectory,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let killedAt: string | undefined
  let finished = false
  const batches = { batches: 0, writes: 0 }
  let stderr = ''
  let buffered = ''
  let lastActivity: string | undefined
  let timer: NodeJS.Timeout | undefined
  const kill = (where: string) => {
    if (killedAt || finished) return
    killedAt = where
    child.kill('SIGKILL')
  }
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (data: string) => {
    buffered += data
    const lines = buffered.split('\n')
    buffered = lines.pop()!
    for (const line of lines) {
      if (line.startsWith('EVENT ') || line.startsWith('LAGGED ')) appendFileSync(livePath, `${line}\n`)
      if (line.startsWith('PAUSE ')) kill(line.slice('PAUSE '.length))
      else if (line.startsWith('BATCHES ')) [batches.batches, batches.writes] = line.split(' ').slice(1).map(Number) as [number, number]
      else if (line === 'DONE') {
        finished = true
        clearTimeout(timer)
      } else if (line === 'READY' && randomKillMs !== undefined) timer = setTimeout(() => kill(`random:${activity(lastActivity)}`), randomKillMs)
      if (line.startsWith('EVENT ') || line === 'READY') lastActivity = line
    }
  })
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()))
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ killedAt, finished, batches, stderr, code, signal })
    }),
  )
}

/** Runs `runs` tasks to completion through as many killed child processes as the seed decides. */
export async function runCrashCampaign(options: CrashCampaignOptions): Promise<CrashCampaignReport> {
  const started = performance.now()
  const random = createRandom(options.seed)
  const points = Object.keys(occurrencesPerTask) as FreezePoint[]
  const killPoints: Record<string, number> = {}
  let kills = 0
  let unreachedFreezes = 0
  let newOwnerLives = 0
  const maxLives = options.runs * 4 + 20
  for (let life = 1; life <= maxLives; life++) {
    const config: ChildConfig = {
      databasePath: options.databasePath,
      ledgerPath: options.ledgerPath,
      seed: options.seed,
      runs: options.runs,
      // Half the restarts are the same worker again; the others a new worker that waits out the dead one's leases.
      ownerId: random() < 0.5 ? 'crash-worker' : `crash-worker-${life}`,
      leaseMs: 1_000,
      defaultGate: options.defaultGate,
    }
    if (config.ownerId !== 'crash-worker') newOwnerLives++
    let randomKillMs: number | undefined
    if (random() < (options.randomKillShare ?? 0.25)) randomKillMs = 50 + Math.floor(random() * 700)
    else {
      const point = points[Math.floor(random() * points.length)]!
      config.freeze = { point, occurrence: 1 + Math.floor(random() * occurrencesPerTask[point] * 2) }
    }
    const result = await runLife(config, randomKillMs, options.livePath)
    if (result.killedAt) {
      kills++
      killPoints[result.killedAt] = (killPoints[result.killedAt] ?? 0) + 1
      options.log?.(`life ${life}: killed at ${result.killedAt}`)
      continue
    }
    if (result.code !== 0 || !result.finished) {
      throw new Error(`crash test (seed ${options.seed}): child ${life} exited with ${result.code ?? result.signal} without finishing:\n${result.stderr}`)
    }
    if (config.freeze) unreachedFreezes++
    options.log?.(`life ${life}: finished every task`)
    const { batches, writes } = result.batches
    return {
      seed: options.seed,
      runs: options.runs,
      lives: life,
      kills,
      killPoints,
      newOwnerLives,
      unreachedFreezes,
      finalLifeBatches: batches,
      finalLifeBatchedWrites: writes,
      durationMs: Math.round(performance.now() - started),
    }
  }
  throw new Error(`crash test (seed ${options.seed}): no child finished the ${options.runs} tasks in ${maxLives} lives`)
}
