// webPage(): the model-facing `web_page` tool: a GET under the SSRF guard, returned as readable text.
import { defineTool, type Tool } from '@spindle/core'
import { z } from 'zod'
import { guardedFetch, resolveFetchLimits, type GuardedFetchOptions } from './guarded-fetch.js'
import { decodeText, isTextual } from './http-fetch.js'
import { htmlToText, type ReadableLink } from './html-to-text.js'
import { WebToolError } from './web-tool-error.js'

/** Options of `webPage()`: the SSRF guard and limits of `GuardedFetchOptions`, the most characters returned and the tool's name. */
export interface WebPageOptions extends GuardedFetchOptions {
  /** Most characters of text returned (default 50 000). */
  maxChars?: number
  /** The name the model sees (default `web_page`). */
  name?: string
}

/** What the `web_page` tool returns: the page's title, readable text and links. */
export interface WebPageResult {
  url: string
  status: number
  title: string
  text: string
  links: ReadableLink[]
  truncated: boolean
}

const webPageInput = z.object({
  url: z.string().describe('Absolute http(s) URL of the page'),
})

/**
 * A `web_page` tool: fetches a page and returns its title, readable text (headings as `#`, list items as `-`)
 * and links; scripts, styles and other non-content are dropped.
 *
 * @example
 * const page = webPage({ allowHosts: ['docs.example.com'] })
 */
export function webPage(options: WebPageOptions = {}): Tool<{ url: string }, WebPageResult> {
  const limits = resolveFetchLimits(options)
  const maxChars = options.maxChars ?? 50_000
  return defineTool({
    name: options.name ?? 'web_page',
    description: `Fetch a web page and return its readable text and links (at most ${maxChars} characters; internal network addresses are refused).`,
    inputSchema: webPageInput,
    idempotent: true,
    effect: 'read',
    timeoutMs: limits.timeoutMs + 1000,
    async execute({ url }, context) {
      const response = await guardedFetch(
        { url, method: 'GET', headers: { accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1' }, signal: context?.signal },
        options,
      )
      const contentType = response.headers['content-type']
      if (!isTextual(contentType, response.body)) {
        throw new WebToolError(
          'web_request_failed',
          `${response.url} is not a text page (content-type ${contentType ?? 'unknown'}); use http_fetch for binary content`,
        )
      }
      const raw = decodeText(response.body, contentType)
      const html = /html|xml/i.test(contentType ?? '') || /^\s*</.test(raw)
      const page = html ? htmlToText(raw, response.url) : { title: '', text: raw.trim(), links: [] }
      const truncated = page.text.length > maxChars
      return {
        url: response.url,
        status: response.status,
        title: page.title,
        text: truncated ? `${page.text.slice(0, maxChars)}\n[… truncated at ${maxChars} characters]` : page.text,
        links: page.links,
        truncated,
      }
    },
  })
}
