// Serves the built web UI (index.html for every page path, hashed assets cached for a year).
import { readFile } from 'node:fs/promises'
import { extname, join, normalize, sep } from 'node:path'
import type { Context } from 'hono'

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
}

export function staticFiles(webDir: string) {
  const root = normalize(webDir) + sep
  return async (c: Context): Promise<Response> => {
    let pathname: string
    try {
      pathname = decodeURIComponent(new URL(c.req.url).pathname)
    } catch {
      // A malformed percent-encoding (`%E0%A4%A`) names no file: the client's mistake, not the server's.
      return c.text('[spindle/playground] bad request: the path is not valid percent-encoded UTF-8', 400)
    }
    const isAsset = pathname.startsWith('/assets/')
    const file = normalize(join(root, isAsset ? pathname : 'index.html'))
    if (!file.startsWith(root)) return c.text('Not found', 404)
    try {
      const content = await readFile(file)
      c.header('content-type', types[extname(file)] ?? 'application/octet-stream')
      c.header('cache-control', isAsset ? 'public, max-age=31536000, immutable' : 'no-cache')
      c.header('x-content-type-options', 'nosniff')
      return c.body(content)
    } catch {
      if (isAsset) return c.text('Not found', 404)
      return c.text(
        `[spindle/playground] the web UI is not built (${webDir} is missing). Run \`pnpm playground\`, or \`pnpm --filter @spindle/playground build:web\`.`,
        503,
      )
    }
  }
}
