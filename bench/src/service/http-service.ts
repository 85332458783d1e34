// The HTTP shell every framework's service shares: `POST /run` runs one scripted 5-step run and answers
// `{ text, toolResults }`; `GET /stats` answers the process's CPU time and finished runs. Started by the service
// suite as a child process (`fork`), it tells the parent its port over IPC and exits when the parent goes away.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

/** What a service's run answers: the final text and how many tool results carried the right sum. */
export interface ServiceRunResult {
  text: string
  toolResults: number
}

/** The figures `GET /stats` answers. */
export interface ServiceStats {
  /** `process.cpuUsage()` of the server, µs. */
  user: number
  system: number
  /** Runs answered with 200 since the start. */
  runs: number
  /** Runs that failed (answered 500). */
  failures: number
}

/** The message a service sends its parent once it listens. */
export interface ServiceReady {
  port: number
}

/** Steps of every run: one `add` tool call each, then the final answer. */
export const serviceSteps = 5

/** Serves `run` over HTTP on a free loopback port; every request body is ignored (a run needs no input). */
export function serveRuns(run: () => Promise<ServiceRunResult>): void {
  const stats: ServiceStats = { user: 0, system: 0, runs: 0, failures: 0 }
  const answer = (response: ServerResponse, status: number, body: string) => {
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    response.end(body)
  }
  const onRun = (response: ServerResponse) => {
    run().then(
      (result) => {
        stats.runs++
        answer(response, 200, JSON.stringify(result))
      },
      (error: unknown) => {
        stats.failures++
        answer(response, 500, JSON.stringify({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }))
      },
    )
  }
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume()
    if (request.method === 'POST' && request.url === '/run') return request.on('end', () => onRun(response))
    if (request.url === '/stats') {
      const { user, system } = process.cpuUsage()
      stats.user = user
      stats.system = system
      return answer(response, 200, JSON.stringify(stats))
    }
    answer(response, 404, '{"error":"not found"}')
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('[spindle/bench] service: no TCP address')
    process.send?.({ port: address.port } satisfies ServiceReady)
  })
  // The parent's channel closes when the suite ends or dies: the service goes with it.
  process.on('disconnect', () => {
    server.close()
    process.exit(0)
  })
}
