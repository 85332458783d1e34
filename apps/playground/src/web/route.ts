// The UI's place, kept in the URL hash: `#/s/<session>` and `#/s/<session>/r/<run>`.
export interface Route {
  sessionId?: string
  runId?: string
}

/** The route in the address; a hash that is not valid percent-encoding (a link cut short) is the start page. */
export function readRoute(): Route {
  const match = location.hash.match(/^#\/s\/([^/]+)(?:\/r\/([^/]+))?/)
  if (!match) return {}
  try {
    return { sessionId: decodeURIComponent(match[1]!), runId: match[2] ? decodeURIComponent(match[2]) : undefined }
  } catch {
    // decodeURIComponent throws on "%E0%A4%A" or a lone "%": thrown while rendering, it would blank the whole page.
    return {}
  }
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
