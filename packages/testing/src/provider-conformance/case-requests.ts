// The requests and wire errors the provider conformance cases script.
import type { ModelRequest } from '@spindle/core'
import type { WireError } from './wire-adapter.js'

/** A request of one user message. */
export function userRequest(text: string): ModelRequest {
  return { messages: [{ role: 'user', content: text }] }
}

/** A request offering four tools, each taking one string argument (the tool-call cases). */
export function toolRequest(): ModelRequest {
  const objectSchema = (property: string) => ({
    type: 'object',
    properties: { [property]: { type: 'string' } },
    required: [property],
    additionalProperties: false,
  })
  return {
    messages: [{ role: 'user', content: 'Use the tools.' }],
    tools: [
      { name: 'get_weather', description: 'Weather for a city', inputSchema: objectSchema('city') },
      { name: 'get_time', description: 'Time in a zone', inputSchema: objectSchema('zone') },
      { name: 'search', description: 'Search', inputSchema: objectSchema('query') },
      { name: 'delete_file', description: 'Delete a file', inputSchema: objectSchema('path') },
    ],
  }
}

/** A 429 wire error, with `extra` (a Retry-After, …). */
export function rateLimit(extra: Partial<WireError>): WireError {
  return { kind: 'rate_limit', status: 429, message: 'Rate limit reached for requests', ...extra }
}

/** A 500 wire error. */
export function serverError(): WireError {
  return { kind: 'server', status: 500, message: 'The server had an error while processing your request.' }
}
