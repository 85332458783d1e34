// An exact OpenAI tokenizer (BPE via gpt-tokenizer) implementing core's Tokenizer; the encoding tables are
// loaded on first use, so importing this module costs nothing until a tokenizer is created.
import type { Tokenizer } from '@spindle/core'

/**
 * The BPE encodings of OpenAI's models that `openaiTokenizer` counts with: `o200k_base` (GPT-4o and later, o-series)
 * and `cl100k_base` (GPT-4, GPT-3.5, the text-embedding models). See `encodingForModel`.
 */
export type OpenAIEncoding = 'o200k_base' | 'cl100k_base'

/**
 * Options of `openaiTokenizer(options)`: an explicit encoding, or the model id to pick it from.
 *
 * @example
 * const runtime = new AgentRuntime(extensions, policy, { tokenizer: await openaiTokenizer({ model: 'gpt-4.1' }) })
 */
export interface OpenAITokenizerOptions {
  /** The BPE encoding; default: chosen from `model`, else `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series). */
  encoding?: OpenAIEncoding
  /** A model id, used to pick the encoding (`gpt-4`, `gpt-3.5-turbo` → `cl100k_base`). */
  model?: string
}

/** The encoding an OpenAI model id uses. */
export function encodingForModel(model: string): OpenAIEncoding {
  const id = model.toLowerCase().replace(/^openai[:/]/, '')
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o\d|chatgpt-4o|codex|gpt-oss)/.test(id)) return 'o200k_base'
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(id)) return 'cl100k_base'
  return 'o200k_base'
}

type CountTokens = (text: string, options?: { disallowedSpecial?: Set<string> }) => number

async function loadEncoding(encoding: OpenAIEncoding): Promise<CountTokens> {
  const module = encoding === 'cl100k_base' ? await import('gpt-tokenizer/encoding/cl100k_base') : await import('gpt-tokenizer/encoding/o200k_base')
  return module.countTokens as CountTokens
}

/**
 * @example
 * const tokenizer = await openaiTokenizer({ model: 'gpt-4o' })
 * const runtime = new AgentRuntime(extensions, policy, { tokenizer })
 */
export async function openaiTokenizer(options: OpenAITokenizerOptions = {}): Promise<Tokenizer> {
  const encoding = options.encoding ?? (options.model ? encodingForModel(options.model) : 'o200k_base')
  const countTokens = await loadEncoding(encoding)
  // User text may contain special-token strings (`<|endoftext|>`): count them as plain text, never throw.
  const plain = { disallowedSpecial: new Set<string>() }
  return {
    name: `openai-${encoding}`,
    count: (text: string) => (text ? countTokens(text, plain) : 0),
  }
}
