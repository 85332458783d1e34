// The soak's parent: enqueues the runs, keeps `workers` worker processes alive, disrupts them (SIGKILL of a random
// worker, or pg_terminate_backend of every worker connection) until every run is terminal, then stops them gracefully.
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { SoakWorkerConfig } from './soak-worker.js'
import { createRandom } from './soak-workload.js'

const workerPath = fileURLToPath(new URL('./soak-worker.ts', import.meta.url))
const packageDirectory = fileURLToPath(new URL('../..', import.meta.url))

export interface SoakCampaignOptions {
  databaseUrl: string
  schema: string
  seed: number
  runs: number
  sessions: number
  workers: number
  concurrency: number
  leaseMs: number
  /** SIGKILL a random worker about this often (and start a new one); off when undefined. */
  killEveryMs?: number
  /** Terminate every backend connection of the workers about this often; off when undefined. */
  terminateEveryMs?: number
  /** Give up after this long. */
  timeoutMs: number
  /**
   * Whether the queue has settled once every run is terminal: a job can still wait for a retry, or for its
   * completion to be written, when its run has ended (a campaign once stopped on `{ retry: 1, completed: 59 }`),
   * so the workers keep going until this says so.
   */
  settled?: () => Promise<boolean>
  log?: (line: string) => void
}

export interface SoakReport {
  durationMs: number
  lives: number
  kills: number
  /** When each worker life was SIGKILLed (ms since the epoch): its open activity intervals end there. */
  killedAt: Record<string, number>
  terminations: number
  terminatedBackends: number
}

interface Life {
  worker: string
  child: ChildProcess
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stderr: string
  killed: boolean
  ready: boolean
}

export async function runSoakCampaign(options: SoakCampaignOptions): Promise<SoakReport> {
  const started = Date.now()
  const random = createRandom(options.seed)
  const applicationName = `spindle-soak-${options.schema}`.slice(0, 63)
  const monitor = new pg.Pool({ connectionString: options.databaseUrl, max: 2, application_name: 'spindle-soak-monitor' })
  monitor.on('error', () => {})
  const lives = new Set<Life>()
  const killedAt: Record<string, number> = {}
  let lifeCount = 0
  let kills = 0
  let terminations = 0
  let terminatedBackends = 0
  let failure: Error | undefined

  const start = () => {
    const worker = `w${++lifeCount}`
    const config: SoakWorkerConfig = {
      databaseUrl: options.databaseUrl,
      schema: options.schema,
      worker,
      applicationName,
      seed: options.seed,
      runs: options.runs,
      sessions: options.sessions,
      concurrency: options.concurrency,
      leaseMs: options.leaseMs,
    }
    const child = spawn(process.execPath, ['--conditions=@spindle/source', '--import', 'tsx', workerPath, JSON.stringify(config)], {
      cwd: packageDirectory,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const life: Life = {
      worker,
      child,
      stderr: '',
      killed: false,
      ready: false,
      exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
    }
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (data: string) => {
      if (data.includes('READY')) life.ready = true
    })
    child.stderr!.on('data', (data: Buffer) => (life.stderr += data.toString()))
    lives.add(life)
    void life.exited.then(({ code, signal }) => {
      lives.delete(life)
      if (!life.killed && code !== 0) failure ??= new Error(`soak worker ${worker} exited with ${code ?? signal}:\n${life.stderr.slice(-4000)}`)
    })
    return life
  }

  const countRuns = async (): Promise<{ terminal: number; running: number }> => {
    const { rows } = await monitor.query<{ terminal: string; running: string }>(
      `SELECT count(*) FILTER (WHERE status IN ('completed', 'failed', 'cancelled')) AS terminal, count(*) FILTER (WHERE status = 'running') AS running
       FROM "${options.schema}".runs`,
    )
    return { terminal: Number(rows[0]!.terminal), running: Number(rows[0]!.running) }
  }

  try {
    for (let i = 0; i < options.workers; i++) start()
    const jitter = (ms: number) => Math.round(ms * (0.5 + random()))
    // The first disruption lands as soon as a run is running (so even a short campaign has one mid-run), then every ~period.
    let nextKill = options.killEveryMs === undefined ? Infinity : 0
    let nextProgress = Date.now() + 5000
    let nextTerminate = options.terminateEveryMs === undefined ? Infinity : 0
    for (;;) {
      if (failure) throw failure
      if (Date.now() - started > options.timeoutMs) {
        throw new Error(
          `soak: ${(await countRuns()).terminal} of ${options.runs} runs terminal after ${options.timeoutMs} ms; stuck:\n${await describeStuck(monitor, options.schema)}`,
        )
      }
      const { terminal, running } = await countRuns()
      if (terminal >= options.runs && (options.settled === undefined || (await options.settled()))) break
      if (Date.now() >= nextProgress) {
        options.log?.(`${Math.round((Date.now() - started) / 1000)} s: ${terminal}/${options.runs} runs terminal, ${lives.size} workers`)
        nextProgress = Date.now() + 5000
      }
      if (Date.now() >= nextKill && running > 0) {
        // The victim is a worker holding a running run (its lease owner is `<worker>-<pid>`), else any working worker.
        const alive = [...lives].filter((life) => !life.killed && life.ready)
        const { rows: holders } = await monitor.query<{ owner: string }>(
          `SELECT DISTINCT lease_owner AS owner FROM "${options.schema}".runs WHERE status = 'running' AND lease_owner IS NOT NULL`,
        )
        const holding = alive.filter((life) => holders.some((holder) => holder.owner.startsWith(`${life.worker}-`)))
        const candidates = holding.length > 0 ? holding : alive
        const victim = candidates[Math.floor(random() * candidates.length)]
        if (victim) {
          victim.killed = true
          killedAt[victim.worker] = Date.now()
          victim.child.kill('SIGKILL')
          kills++
          options.log?.(`killed ${victim.worker}`)
          start()
        }
        nextKill = Date.now() + jitter(options.killEveryMs!)
      }
      if (Date.now() >= nextTerminate && running > 0) {
        const { rows } = await monitor.query<{ terminated: boolean }>(
          'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
          [applicationName],
        )
        terminations++
        terminatedBackends += rows.filter((row) => row.terminated).length
        options.log?.(`terminated ${rows.length} backends`)
        nextTerminate = Date.now() + jitter(options.terminateEveryMs!)
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    // Graceful stop: each working worker finishes what it holds (nothing by now) and exits 0; one still starting
    // up holds nothing and has no SIGTERM handler yet: it is simply killed.
    for (const life of lives) {
      if (life.ready) continue
      life.killed = true
      life.child.kill('SIGKILL')
    }
    const stopping = [...lives].filter((life) => !life.killed)
    for (const life of stopping) life.child.kill('SIGTERM')
    const results = await Promise.all(stopping.map((life) => life.exited))
    if (failure) throw failure
    results.forEach((result, i) => {
      if (result.code !== 0)
        throw new Error(`soak worker ${stopping[i]!.worker} did not stop cleanly (${result.code ?? result.signal}):\n${stopping[i]!.stderr}`)
    })
    return { durationMs: Date.now() - started, lives: lifeCount, kills, killedAt, terminations, terminatedBackends }
  } finally {
    for (const life of lives) {
      life.killed = true
      life.child.kill('SIGKILL')
    }
    await monitor.end()
  }
}

/** The runs still open and their jobs, for the timeout message. */
async function describeStuck(monitor: pg.Pool, schema: string): Promise<string> {
  const { rows: runs } = await monitor.query(
    `SELECT r.id, r.session_id, r.status, r.lease_owner, r.lease_expires_at, j.state, j.retry_count, j.start_after, j.output
     FROM "${schema}".runs r LEFT JOIN "${schema}_queue".job j ON j.singleton_key = r.id
     WHERE r.status NOT IN ('completed', 'failed', 'cancelled')`,
  )
  const { rows: leases } = await monitor.query(`SELECT * FROM "${schema}".gate_leases WHERE session_id = ANY($1)`, [runs.map((run) => run.session_id)])
  return JSON.stringify({ runs, leases }, null, 1)
}
