// The default RunQueue: FIFO jobs within this process, handled by `runtime.work()`.
import type { RunJob, RunQueue, WorkOptions } from '../spec/run-queue.js'

export class InProcessRunQueue implements RunQueue {
  readonly specificationVersion = 'v1' as const
  readonly #jobs: RunJob[] = []
  readonly #waiters = new Set<() => void>()
  /** Errors thrown by handlers (the run stays recoverable through `recover()`). */
  readonly errors: unknown[] = []

  get size(): number {
    return this.#jobs.length
  }

  async enqueue(job: RunJob): Promise<void> {
    this.#jobs.push(job)
    for (const wake of this.#waiters) wake()
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
        const task = handler(job).catch((error: unknown) => void this.errors.push(error))
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
