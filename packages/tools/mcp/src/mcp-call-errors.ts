// What a failed MCP request means for the call: the server could not be reached (the call was not made), the
// HTTP session was rejected (re-initialize and retry), or the transport lost the connection during the call.

/** The abort reason given to in-flight calls when the transport reports the connection lost. */
export class ConnectionLost extends Error {
  constructor(readonly transportError: unknown) {
    super(`the connection was lost: ${transportError instanceof Error ? transportError.message : String(transportError)}`)
    this.name = 'ConnectionLost'
  }
}

const unreachableCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])

/** A fetch that never reached the server (connection refused, unknown host): the request was not delivered. */
export function isUnreachable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && unreachableCodes.has(code)) return true
  }
  return false
}

/**
 * A Streamable HTTP server that no longer knows the session (it restarted): the spec says 404, servers in the wild
 * also answer 400 "No valid session ID provided". The request was refused before it ran, so it can be sent again.
 */
export function isSessionRejected(error: unknown): boolean {
  const status = (error as { code?: unknown }).code
  if (!(error instanceof Error) || !error.message.startsWith('Streamable HTTP error')) return false
  if (status === 404) return true
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 401 && status !== 403 && /session/i.test(error.message)
}

/**
 * A Streamable HTTP transport error saying an SSE stream broke (not a malformed message, a stray notification, or a
 * request that failed by itself, which its caller sees).
 */
export function isStreamLoss(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error)
  return /^(SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts)/.test(message)
}

/** Network-level failures (no JSON-RPC error code): the HTTP server is gone or the session was lost. */
export function isTransportFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  if (typeof code === 'number' && code < 0) return false // a JSON-RPC error answered by the server
  const message = error instanceof Error ? error.message : String(error)
  return (
    error instanceof TypeError ||
    /ECONNREFUSED|ECONNRESET|fetch failed|socket hang up|Session not found|Error POSTing to endpoint \(HTTP (404|5\d\d)\)/i.test(message)
  )
}
