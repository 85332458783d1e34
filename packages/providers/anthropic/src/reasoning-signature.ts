// Which reasoning can go back to Anthropic: only thinking the Messages API signed itself.
// Anthropic signatures and redacted-thinking payloads are opaque base64; other providers' reasoning
// (OpenAI's `openai-reasoning:{…}`) carries a `name:` prefix or JSON, and the API rejects it with a 400.
const base64 = /^[A-Za-z0-9+/_-]+={0,2}$/

/** True when `value` has the shape of an Anthropic `signature` or `redacted_thinking.data` (base64, no prefix). */
export function isAnthropicSignature(value: string | undefined): value is string {
  return value !== undefined && base64.test(value)
}
