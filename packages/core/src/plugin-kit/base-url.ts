// A base URL checked at creation: the SDKs append each path to the base URL's text, so a query string would end up
// before the path (`/v1?api-version=1/chat/completions`, a 404) and userinfo makes fetch refuse every request.

/** A base URL split for the SDK: the part before the query, and the query as the SDK's `defaultQuery`. */
export interface SplitBaseURL {
  baseURL: string
  defaultQuery: Record<string, string> | undefined
}

/**
 * Checks a base URL and splits its query off (kept on every request through the SDK's `defaultQuery`, so the paths
 * go before it). `fail` throws the caller's ConfigurationError; messages never quote the URL's credentials.
 */
export function splitBaseURL(raw: string, fail: (message: string) => never): SplitBaseURL {
  if (!/^https?:\/\//i.test(raw)) fail(`baseURL "${raw}" must start with http:// or https://`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return fail(`baseURL "${raw}" is not a valid URL`)
  }
  if (url.username || url.password) {
    const shown = `${url.protocol}//${url.host}${url.pathname}`
    fail(
      `baseURL "${shown}" carries credentials before its host (user:password@), which fetch refuses on every request; ` +
        `pass the key as apiKey, or send the credentials in headers (e.g. headers: { authorization: 'Basic …' })`,
    )
  }
  if (url.hash) fail(`baseURL "${url.protocol}//${url.host}${url.pathname}" has a fragment (#…), which would cut off every request path; remove it`)
  if (!url.search) return { baseURL: raw, defaultQuery: undefined }
  const defaultQuery: Record<string, string> = {}
  for (const [key, value] of url.searchParams) {
    if (key in defaultQuery) fail(`baseURL query parameter "${key}" is given twice; give it once`)
    defaultQuery[key] = value
  }
  return { baseURL: `${url.protocol}//${url.host}${url.pathname}`, defaultQuery }
}
