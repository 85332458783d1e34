// What the real APIs answer to a JSON body with an unpaired UTF-16 surrogate: `JSON.stringify` writes a lone
// surrogate as an escape (`"\ud800"`), which strict JSON parsers (Anthropic's) refuse with a 400. The loopback
// servers refuse such bodies the same way, so a provider that sends one fails its tests as it would in production.
import type { RecordedRequest, ScriptedResponse } from './sse-server.js'

/** An unpaired surrogate escape found in a JSON text: what a strict parser reports, and where (0-based index). */
export interface LoneSurrogateEscape {
  /** The strict parser's words: a high surrogate with no low one after it, a wrong one after it, or a low one alone. */
  problem: 'no low surrogate in string' | 'invalid low surrogate in string' | 'invalid high surrogate in string'
  /** Index in the JSON text where the parser stops. */
  index: number
}

/**
 * The first unpaired surrogate escape (`\uD800`–`\uDFFF` not forming a high-low pair) inside a JSON string of
 * `json`, or `undefined` when every string is well formed. Escaped backslashes (`\\ud800`, a backslash and text)
 * are not escapes.
 *
 * @example
 * findLoneSurrogateEscape(JSON.stringify({ text: 'x \ud800' })) // { problem: 'no low surrogate in string', index: 17 }
 */
export function findLoneSurrogateEscape(json: string): LoneSurrogateEscape | undefined {
  let inString = false
  for (let index = 0; index < json.length; index++) {
    const char = json[index]
    if (!inString) {
      if (char === '"') inString = true
      continue
    }
    if (char === '"') {
      inString = false
      continue
    }
    if (char !== '\\') continue
    if (json[index + 1] !== 'u') {
      index++
      continue
    }
    const unit = hexUnit(json, index + 2)
    if (unit === undefined || unit < 0xd800 || unit > 0xdfff) {
      index += 5
      continue
    }
    if (unit >= 0xdc00) return { problem: 'invalid high surrogate in string', index }
    const next = index + 6
    if (json[next] !== '\\' || json[next + 1] !== 'u') return { problem: 'no low surrogate in string', index: next }
    const low = hexUnit(json, next + 2)
    if (low === undefined || low < 0xdc00 || low > 0xdfff) return { problem: 'invalid low surrogate in string', index: next }
    index = next + 5
  }
  return undefined
}

/**
 * The Anthropic API's answer to a body holding a lone surrogate (HTTP 400, `invalid_request_error`, "The request body
 * is not valid JSON: no low surrogate in string: line 1 column N (char N-1)"), or `undefined` for a well-formed body.
 * `startAnthropicMessagesServer` answers every request with it first.
 */
export function anthropicLoneSurrogateRejection(request: RecordedRequest): ScriptedResponse | undefined {
  const found = findLoneSurrogateEscape(request.rawBody)
  if (!found) return undefined
  const requestId = `req_loopback_surrogate_${found.index}`
  return {
    status: 400,
    headers: { 'request-id': requestId },
    json: {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: `The request body is not valid JSON: ${found.problem}: line 1 column ${found.index + 1} (char ${found.index})`,
      },
      request_id: requestId,
    },
  }
}

/**
 * OpenAI's answer to a body it cannot parse as JSON (HTTP 400, `invalid_request_error`, "We could not parse the JSON
 * body of your request…"), given here to a body holding a lone surrogate, or `undefined` for a well-formed body.
 * Pass it as `startScriptedServer({ rejectRequest: openaiLoneSurrogateRejection })`.
 */
export function openaiLoneSurrogateRejection(request: RecordedRequest): ScriptedResponse | undefined {
  if (!findLoneSurrogateEscape(request.rawBody)) return undefined
  return {
    status: 400,
    headers: { 'x-request-id': 'req_loopback_surrogate' },
    json: {
      error: {
        message:
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    },
  }
}

function hexUnit(text: string, start: number): number | undefined {
  const digits = text.slice(start, start + 4)
  return /^[0-9a-fA-F]{4}$/.test(digits) ? Number.parseInt(digits, 16) : undefined
}
