// RunQueue, spec v1: runs enqueued by one process and executed by workers (in-process by default, PostgreSQL across machines).
/** A queued run: `runtime.enqueue()` writes the run, then enqueues this. */
export interface RunJob {
  runId: string
  sessionId: string
}

/** How a worker claims jobs: how many at once, and the signal that stops it claiming (graceful shutdown). */
export interface WorkOptions {
  /** Jobs handled at once by this worker. */
  concurrency: number
  /** Stops claiming new jobs; `work()` resolves once the jobs in flight have finished (graceful shutdown). */
  signal: AbortSignal
}

/** Spec v1: runs enqueued by one process and executed by workers (`InProcessRunQueue` by default, `PostgresRunQueue` across machines). */
export interface RunQueue {
  readonly specificationVersion: 'v1'
  enqueue(job: RunJob): Promise<void>
  /**
   * Claims jobs and calls `handler` for each. A job whose handler throws, or whose worker dies, is handed to
   * another worker (the run resumes from its snapshot).
   */
  work?(handler: (job: RunJob) => Promise<void>, options: WorkOptions): Promise<void>
  close?(): Promise<void> | void
}
