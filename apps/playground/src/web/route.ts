// The UI's place, kept in the URL hash: `#/s/<session>` and `#/s/<session>/r/<run>`.
export interface Route {
  sessionId?: string
  runId?: string
}

export function readRoute(): Route {
  const match = location.hash.match(/^#\/s\/([^/]+)(?:\/r\/([^/]+))?/)
  return match ? { sessionId: decodeURIComponent(match[1]!), runId: match[2] ? decodeURIComponent(match[2]) : undefined } : {}
}

/**
 * `push` for what the user chose (Back returns from it); `replace` for where the page moves by itself (a session
 * opening on its latest run, following a queued message), or Back would land on a page that moves again.
 */
export function writeRoute(route: Route, mode: 'push' | 'replace' = 'push'): void {
  const hash = route.sessionId ? `#/s/${encodeURIComponent(route.sessionId)}${route.runId ? `/r/${encodeURIComponent(route.runId)}` : ''}` : '#/'
  if (location.hash === hash) return
  if (mode === 'replace') history.replaceState(null, '', hash)
  else history.pushState(null, '', hash)
}
