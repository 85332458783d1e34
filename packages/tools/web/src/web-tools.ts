// webTools(): both web tools with shared guard options, as a ToolSet keyed by model-facing name.
import type { Tool } from '@spindle/core'
import { httpFetch, type HttpFetchOptions } from './http-fetch.js'
import { webPage, type WebPageOptions } from './web-page.js'

/** Options of `webTools()`, shared by its `http_fetch` and `web_page` tools. */
export type WebToolsOptions = Omit<HttpFetchOptions, 'name'> & Pick<WebPageOptions, 'maxChars'>

/**
 * @example
 * runtime.run({ input, agent: { model, tools: webTools({ allowHosts: ['*.example.com'] }) } })
 */
export function webTools(options: WebToolsOptions = {}): Record<string, Tool> {
  return { http_fetch: httpFetch(options), web_page: webPage(options) }
}
