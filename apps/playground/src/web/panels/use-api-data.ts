// Loads one API path for a panel, again whenever `version` changes (a new event, another run): the last answer wins.
import { useEffect, useState } from 'react'
import { api } from '../api'

export interface ApiData<T> {
  data?: T
  error?: string
  loading: boolean
}

export function useApiData<T>(path: string | undefined, version: unknown = 0): ApiData<T> {
  const [state, setState] = useState<ApiData<T> & { path?: string }>({ loading: false })
  useEffect(() => {
    if (!path) return setState({ loading: false })
    let current = true
    setState((previous) => ({ ...(previous.path === path ? previous : {}), path, loading: true }))
    api<T>(path).then(
      (data) => current && setState({ path, data, loading: false }),
      (failure: Error) => current && setState({ path, error: failure.message, loading: false }),
    )
    return () => {
      current = false
    }
  }, [path, version])
  return state
}
