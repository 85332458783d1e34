// A small fetch wrapper: JSON in and out, errors turned into readable messages.
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** Shown when the server does not answer: stopped, restarting, or the network is down. */
export const unreachableMessage =
  'The playground server is not reachable (stopped or restarting?). Start it again with `pnpm playground`, then retry: this page reconnects by itself.'

let unreachable = false
const reachableListeners = new Set<() => void>()

const unreachableListeners = new Set<() => void>()

/** Calls `listener` each time a request gets no answer (the server is stopped or restarting); returns the unsubscribe function. */
export function onUnreachable(listener: () => void): () => void {
  unreachableListeners.add(listener)
  return () => unreachableListeners.delete(listener)
}

/** Calls `listener` each time the server answers again after it did not; returns the unsubscribe function. */
export function onReachableAgain(listener: () => void): () => void {
  reachableListeners.add(listener)
  return () => reachableListeners.delete(listener)
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  let response: Response
  try {
    response = await fetch(`/api${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: init.body === undefined ? {} : { 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: 'same-origin',
    })
  } catch {
    // No answer at all (the browser's own words would be a bare "Failed to fetch").
    unreachable = true
    for (const listener of unreachableListeners) listener()
    throw new ApiFailure(0, unreachableMessage)
  }
  if (unreachable) {
    unreachable = false
    for (const listener of reachableListeners) listener()
  }
  const text = await response.text()
  let data: any
  try {
    data = text ? JSON.parse(text) : {}
  } catch {
    throw new ApiFailure(response.status, `${response.status} ${response.statusText}: ${text.slice(0, 300)}`)
  }
  if (!response.ok) throw new ApiFailure(response.status, data?.error?.message ?? `${response.status} ${response.statusText}`)
  return data as T
}
