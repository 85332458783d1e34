// RunQueue, spec v1: runs enqueued by one process and executed by workers (in-process by default, PostgreSQL across machines).
export interface RunJob {
  runId: string
  sessionId: string
}

export interface WorkOptions {
  /** Jobs handled at once by this worker. */
  concurrency: number
  /** Stops claiming new jobs; `work()` resolves once the jobs in flight have finished (graceful shutdown). */
  signal: AbortSignal
}

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
