// OpenAI's HTTP error bodies and retry headers, shared by the Responses and Chat Completions wires.
import type { WireError } from '../provider-conformance/wire-adapter.js'
import type { ScriptedResponse } from './sse-server.js'

/** The `error.type` / `error.code` OpenAI uses for each kind of failure. */
export function openaiErrorFields(error: WireError): { type: string; code: string | null; param: string | null } {
  switch (error.kind) {
    case 'rate_limit':
      return { type: 'requests', code: 'rate_limit_exceeded', param: null }
    case 'server':
      return { type: 'server_error', code: 'server_error', param: null }
    case 'overloaded':
      return { type: 'server_error', code: 'server_is_overloaded', param: null }
    case 'authentication':
      return { type: 'invalid_request_error', code: 'invalid_api_key', param: null }
    case 'invalid_request':
      return { type: 'invalid_request_error', code: null, param: null }
    case 'context_overflow':
      return { type: 'invalid_request_error', code: 'context_length_exceeded', param: 'input' }
  }
}

/**
 * An OpenAI HTTP error response: `{ error: { message, type, param, code } }` with `x-request-id`,
 * `retry-after` and `retry-after-ms` headers as the API sends them.
 */
export function openaiHttpError(error: WireError): ScriptedResponse {
  const headers: Record<string, string> = { 'x-request-id': `req_${error.kind}_${error.status}` }
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds)
  if (error.retryAfterMs !== undefined) headers['retry-after-ms'] = String(error.retryAfterMs)
  return { status: error.status, headers, json: { error: { message: error.message, ...openaiErrorFields(error) } } }
}
