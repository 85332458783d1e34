// The default RunQueue: FIFO jobs within this process, handled by `runtime.work()`.
import type { RunJob, RunQueue, WorkOptions } from '../spec/run-queue.js'

/**
 * Options of `new InProcessRunQueue(options)`: how long a job refused because its session is busy waits before it is
 * tried again (the wait doubles up to `busyDelayMaxMs`).
 */
export interface InProcessRunQueueOptions {
  /** The first wait before a job refused for a busy session is tried again, in ms; default 250 (then doubled). */
  busyDelayMs?: number
  /** The longest such wait, in ms; default 30,000 (a run awaiting approval may hold its session for hours). */
  busyDelayMaxMs?: number
}

export class InProcessRunQueue implements RunQueue {
  readonly specificationVersion = 'v1' as const
  readonly #jobs: RunJob[] = []
  readonly #waiters = new Set<() => void>()
  /** Refusals for a busy session so far, by run: the job waits longer each time. */
  readonly #busy = new Map<string, number>()
  readonly #busyDelayMs: number
  readonly #busyDelayMaxMs: number
  /** Errors thrown by handlers (the run stays recoverable through `recover()`). */
  readonly errors: unknown[] = []

  constructor(options: InProcessRunQueueOptions = {}) {
    this.#busyDelayMs = Math.max(1, options.busyDelayMs ?? 250)
    this.#busyDelayMaxMs = Math.max(this.#busyDelayMs, options.busyDelayMaxMs ?? 30_000)
  }

  get size(): number {
    return this.#jobs.length
  }

  async enqueue(job: RunJob): Promise<void> {
    this.#jobs.push(job)
    for (const wake of this.#waiters) wake()
  }

  /** Puts a job refused for a busy session back after a wait that doubles with each refusal. */
  #later(job: RunJob): void {
    const refusals = (this.#busy.get(job.runId) ?? 0) + 1
    this.#busy.set(job.runId, refusals)
    const timer = setTimeout(() => void this.enqueue(job), Math.min(this.#busyDelayMaxMs, this.#busyDelayMs * 2 ** Math.min(20, refusals - 1)))
    timer.unref?.()
  }

  async work(handler: (job: RunJob) => Promise<void>, options: WorkOptions): Promise<void> {
    const { signal } = options
    const inFlight = new Set<Promise<void>>()
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve()
      else signal.addEventListener('abort', () => resolve(), { once: true })
    })
    while (!signal.aborted) {
      const job = inFlight.size < options.concurrency ? this.#jobs.shift() : undefined
      if (job) {
        const task = handler(job).then(
          () => void this.#busy.delete(job.runId),
          (error: unknown) => {
            // Refused because another run of its session is unfinished (or awaits approval): not a failure, it waits.
            if ((error as { code?: unknown } | null)?.code === 'session_busy') this.#later(job)
            else {
              this.#busy.delete(job.runId)
              this.errors.push(error)
            }
          },
        )
        inFlight.add(task)
        void task.finally(() => {
          inFlight.delete(task)
          for (const wake of this.#waiters) wake()
        })
        continue
      }
      await Promise.race([
        stopped,
        new Promise<void>((resolve) => {
          const wake = () => {
            this.#waiters.delete(wake)
            resolve()
          }
          this.#waiters.add(wake)
        }),
      ])
    }
    await Promise.all(inFlight)
  }
}
