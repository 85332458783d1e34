// Reads a request's body up to a size limit: refused from its Content-Length, or as soon as a streamed (chunked)
// body passes the limit, without buffering the rest.

/** The body passed the limit (answered 413). */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`[spindle/playground] the request body is larger than ${limit.toLocaleString('en-US')} bytes; send a shorter message`)
  }
}

/** The body as text; throws `BodyTooLargeError` once it passes `limit` bytes. */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (declared > limit) throw new BodyTooLargeError(limit)
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw new BodyTooLargeError(limit)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return new TextDecoder().decode(bytes)
}
