// `providerOptions.anthropic` of a ModelRequest, validated at the boundary.
import { ConfigurationError } from '@spindle/core'
import { z } from 'zod'

const thinkingSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1) }),
  z.object({ type: z.literal('adaptive') }),
  z.object({ type: z.literal('disabled') }),
])

/** The zod schema `AnthropicRequestOptions` are validated with. */
export const anthropicRequestOptionsSchema = z.object({
  /** Extended thinking, e.g. `{ type: 'enabled', budget_tokens: 4096 }`; streamed as `reasoning-delta` parts. */
  thinking: thinkingSchema.optional(),
  /**
   * How `responseFormat` is enforced: `output-format` (default) sends the API's JSON-schema
   * `output_config.format`; `tool` forces a single tool whose input is the answer (for models and
   * compatible servers without structured outputs). Either way the JSON arrives as text deltas.
   */
  structuredOutput: z.enum(['output-format', 'tool']).optional(),
  /** Prompt-caching breakpoints on the last system block and the last tool (default true). */
  cacheControl: z.boolean().optional(),
  /** Forbid parallel tool calls. */
  disableParallelToolUse: z.boolean().optional(),
  topK: z.number().int().min(0).optional(),
  /** Sent as `metadata.user_id`. */
  userId: z.string().optional(),
})

/** Anthropic-specific options of a request (`providerOptions.anthropic`, or a model's defaults): thinking, caching and the like. */
export type AnthropicRequestOptions = z.infer<typeof anthropicRequestOptionsSchema>

export function parseAnthropicRequestOptions(value: unknown): AnthropicRequestOptions {
  if (value === undefined) return {}
  const parsed = anthropicRequestOptionsSchema.safeParse(value)
  if (!parsed.success) {
    throw new ConfigurationError(`[spindle/anthropic] invalid providerOptions.anthropic: ${z.prettifyError(parsed.error)}`, { cause: parsed.error })
  }
  return parsed.data
}
