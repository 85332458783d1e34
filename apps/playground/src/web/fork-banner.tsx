// Above a fork's conversation (or a replay's, or a retry's): where it comes from, and a comparison with its parent.
import { useEffect, useState } from 'react'
import { api } from './api'
import type { SessionRecord } from './types'

/** Where a session was forked from (its metadata's `forkedFrom`). */
export interface ForkOrigin {
  sessionId: string
  runId?: string
  step?: number
  purpose?: string
  edited?: boolean
}

/** The session's fork origin, or undefined when it is not a fork (reloaded when `refresh` changes). */
export function useForkOrigin(sessionId: string | undefined, refresh: number): ForkOrigin | undefined {
  const [loaded, setLoaded] = useState<{ sessionId: string; origin?: ForkOrigin }>()
  useEffect(() => {
    if (!sessionId) return
    let current = true
    api<{ session: SessionRecord }>(`/sessions/${encodeURIComponent(sessionId)}`).then(
      (data) => current && setLoaded({ sessionId, origin: data.session.metadata?.forkedFrom as unknown as ForkOrigin | undefined }),
      () => current && setLoaded({ sessionId }),
    )
    return () => {
      current = false
    }
  }, [sessionId, refresh])
  return loaded && loaded.sessionId === sessionId ? loaded.origin : undefined
}

export function ForkBanner(props: { origin: ForkOrigin; onCompare(): void; onOpen(sessionId: string): void }) {
  const { origin } = props
  const what = origin.purpose === 'retry' ? 'A retry' : origin.purpose === 'replay' ? (origin.edited ? 'An edited replay' : 'A replay') : 'A fork'
  return (
    <div className="fork-banner" data-testid="fork-banner">
      <span>
        {what} of{' '}
        <button className="link" onClick={() => props.onOpen(origin.sessionId)}>
          its parent session
        </button>
        {origin.step !== undefined ? ` from step ${origin.step}` : ''}
      </span>
      <button onClick={props.onCompare} style={{ whiteSpace: 'nowrap' }}>
        Compare with parent
      </button>
    </div>
  )
}
