// A tool result as it enters the context: as is when it fits, media kept out of the text cut, else cut head and
// tail with the whole stored as an artifact.
import type { PendingCall } from '../spec/run-state.js'
import type { JsonValue } from '../spec/json.js'
import type { Tool } from './tool.js'
import type { ExecuteCallsInput } from './tool-step.js'
import { isToolAllowed } from './tool-scope.js'
import { truncateOutput } from './truncate-output.js'
import { capMediaToolOutput, defaultMaxToolMediaBytes } from './tool-output-cap.js'

/** The result as it enters the context: as is when it fits (synchronously), else truncated with the whole kept as an artifact. */
export function shapeToolResult(result: JsonValue, tool: Tool, call: PendingCall, input: ExecuteCallsInput): JsonValue | Promise<JsonValue> {
  const allowed = tool.maxOutputBytes ?? input.policy.maxToolOutputBytes
  const maxBytes = input.contextMaxOutputBytes !== undefined && input.contextMaxOutputBytes < allowed ? input.contextMaxOutputBytes : allowed
  if (fitsUnserialized(result, maxBytes)) return result
  // Images and other binary media stay out of the text cut (tool-output-cap.ts).
  const media = capMediaToolOutput(result, {
    maxBytes,
    maxMediaBytes: input.policy.maxToolMediaBytes ?? defaultMaxToolMediaBytes,
    artifacts: input.artifacts,
    name: `${call.toolName}-${call.callId}`,
    metadata: { runId: input.runId, callId: call.callId, tool: tool.id },
  })
  if (media !== undefined) return media
  const first = truncateOutput(result, maxBytes)
  if (!first.truncated) return result
  return truncatedWithArtifact(result, first.serialized, maxBytes, tool, call, input)
}

/** The result cut head and tail for the context, its whole kept as an artifact (named when the model can read it). */
async function truncatedWithArtifact(
  result: JsonValue,
  serialized: string,
  maxBytes: number,
  tool: Tool,
  call: PendingCall,
  input: ExecuteCallsInput,
): Promise<JsonValue> {
  let artifactId: string | undefined
  try {
    const artifact = await input.artifacts.put(serialized, {
      mediaType: typeof result === 'string' ? 'text/plain' : 'application/json',
      name: `${call.toolName}-${call.callId}`,
      metadata: { runId: input.runId, callId: call.callId, tool: tool.id },
    })
    artifactId = artifact.id
  } catch {
    // The call ran and its result is journaled whole: an artifact store outage must not report it as failed
    // (the model would retry a side effect). The context gets the head and tail without an artifact to read.
    artifactId = undefined
  }
  // The marker names the artifact only when the model can read it back (read_artifact offered and allowed).
  const reader = input.scope.get('read_artifact')
  const readable = reader !== undefined && isToolAllowed(input.policy.tools, 'read_artifact', reader.id)
  return truncateOutput(result, maxBytes, readable ? artifactId : undefined).value
}

/**
 * Whether a result fits `maxBytes` without serializing it: a number, boolean or null (at most 24 bytes of JSON),
 * or a string whose UTF-16 length, at 3 UTF-8 bytes per unit at most, is within the limit.
 */
function fitsUnserialized(result: JsonValue, maxBytes: number): boolean {
  if (typeof result === 'string') return result.length * 3 <= maxBytes
  return (result === null || typeof result === 'number' || typeof result === 'boolean') && maxBytes >= 24
}
