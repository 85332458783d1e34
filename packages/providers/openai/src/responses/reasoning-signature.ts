// A Responses reasoning item travels through Spindle's messages as the ReasoningPart `signature`:
// its id and encrypted content, so a stateless (store: false) conversation can send it back.
const prefix = 'openai-reasoning:'

export function encodeReasoningSignature(id: string, encryptedContent: string): string {
  return `${prefix}${JSON.stringify({ id, encrypted_content: encryptedContent })}`
}

/** The item id and encrypted content, or `undefined` for a signature of another provider. */
export function decodeReasoningSignature(signature: string | undefined): { id: string; encrypted_content: string } | undefined {
  if (!signature?.startsWith(prefix)) return undefined
  try {
    const value = JSON.parse(signature.slice(prefix.length)) as { id?: unknown; encrypted_content?: unknown }
    if (typeof value.id === 'string' && typeof value.encrypted_content === 'string') return { id: value.id, encrypted_content: value.encrypted_content }
  } catch {
    // Not ours: ignored.
  }
  return undefined
}
