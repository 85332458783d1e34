// Whether the playground server answers: false from a request that got no answer until one gets an answer again.
import { useEffect, useState } from 'react'
import { onReachableAgain, onUnreachable } from './api'

export function useReachable(): boolean {
  const [reachable, setReachable] = useState(true)
  useEffect(() => {
    const offDown = onUnreachable(() => setReachable(false))
    const offUp = onReachableAgain(() => setReachable(true))
    return () => {
      offDown()
      offUp()
    }
  }, [])
  return reachable
}
