// Reads a bus subscription in tests: the first `count` events, or fewer once `timeoutMs` has passed.
import type { AgentEvent, LaggedEvent } from '@spindle/core'

/** The first `count` events of `iterable` (fewer when `timeoutMs` passes first); ends the subscription. */
export async function take(iterable: AsyncIterable<AgentEvent | LaggedEvent>, count: number, timeoutMs = 5000): Promise<Array<AgentEvent | LaggedEvent>> {
  const taken: Array<AgentEvent | LaggedEvent> = []
  const iterator = iterable[Symbol.asyncIterator]()
  const deadline = setTimeout(() => void iterator.return?.(), timeoutMs)
  while (taken.length < count) {
    const next = await iterator.next()
    if (next.done) break
    taken.push(next.value)
  }
  clearTimeout(deadline)
  await iterator.return?.()
  return taken
}
