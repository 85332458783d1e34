// streamDetached: a run streamed to one HTTP response that outlives it. `runtime.stream` cancels a run whose reader
// stops; a browser that reloads or loses its connection stops reading, and its run would be cancelled. Here the rest
// of the events is read and dropped instead: the run goes on to its end (written to its durable log), and the
// reconnecting client catches up with `runEvents` (useChat's `resume: true`).
import type { AgentEvent, AgentRuntime, RunOutput, RunRequest, RunStream } from '@spindle/core'

/**
 * Starts the run like `runtime.stream(request)`, but a reader that stops (the response's client went away) does not
 * cancel it: the run goes on, its events still go to its log and to `runtime.subscribe`. Cancel it with
 * `runtime.cancel(runId)`. `result` is the run's output, as with `runtime.stream`.
 *
 * @example
 * app.post('/api/chat', async (c) => {
 *   const { input, chatId } = fromUIMessages(await c.req.json())
 *   return toUIMessageStreamResponse(streamDetached(runtime, { sessionId: chatId, agent, input: input! }))
 * })
 */
export function streamDetached(runtime: AgentRuntime, request: RunRequest): RunStream {
  return detachFromReader(runtime.stream(request))
}

/** The stream, read to its end when its reader stops: what is left is dropped, the run goes on. */
function detachFromReader(stream: RunStream): RunStream {
  const iterator = stream[Symbol.asyncIterator]()
  let inFlight: Promise<unknown> = Promise.resolve()
  let draining = false
  const drain = async (): Promise<void> => {
    try {
      while (!(await iterator.next()).done) {
        // The run goes on; nobody reads its events here (its log and `runtime.subscribe` have them).
      }
    } catch {
      // The run's failure is in its record, its log and `result`.
    }
  }
  const detached: AsyncIterator<AgentEvent> = {
    next: () => {
      if (draining) return Promise.resolve({ done: true, value: undefined })
      const next = iterator.next()
      inFlight = next.catch(() => {})
      return next
    },
    return: async () => {
      if (!draining) {
        draining = true
        // After the read in flight, so that two reads never overlap.
        void inFlight.then(drain)
      }
      return { done: true, value: undefined }
    },
  }
  const result: Promise<RunOutput> = stream.result
  return { result, [Symbol.asyncIterator]: () => detached }
}
