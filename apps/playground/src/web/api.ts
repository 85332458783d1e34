// A small fetch wrapper: JSON in and out, errors turned into readable messages.
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`/api${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: init.body === undefined ? {} : { 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: 'same-origin',
  })
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
