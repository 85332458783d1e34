// A calibrated token estimate for models without a local tokenizer: per-family character ratios, scaled by
// samples with known counts and by the input tokens providers report (`observe`), always erring high.
import type { LanguageModel } from '../spec/language-model.js'
import { type Tokenizer, wideCodeUnits } from './tokenizer.js'

/** Options of `calibratedTokenizer()`: the provider family's starting ratio and how fast it learns from reported usage. */
export interface CalibratedTokenizerOptions {
  name?: string
  /** Latin-script characters per token before calibration (default: the model family's profile, else 3.6). */
  charsPerToken?: number
  /** Tokens per CJK / wide character (default 1.1). */
  wideCharTokens?: number
  /** Texts with their true token counts (e.g. from a provider's token-counting endpoint): fixes the scale up front. */
  samples?: Array<{ text: string; tokens: number }>
  /** Safety factor on top of the calibrated scale (default 1.05: budgets hold even when the estimate is off a little). */
  margin?: number
  /** Weight of a new observation in the running scale (default 0.2). */
  learningRate?: number
}

/** A Tokenizer whose scale learns from reported usage. */
export interface CalibratedTokenizer extends Tokenizer {
  /** The current multiplier on the raw character estimate. */
  readonly scale: number
  /** Feeds back a request's estimated count and the input tokens the provider reported for it. */
  observe(estimatedTokens: number, actualTokens: number): void
}

/** Latin characters per token, by provider family (English prose; code and JSON are denser, which calibration learns). */
export const tokenizerProfiles: Readonly<Record<string, number>> = {
  openai: 4.0,
  azure: 4.0,
  anthropic: 3.4,
  google: 4.0,
  gemini: 4.0,
  mistral: 3.6,
  default: 3.6,
}

function rawCount(text: string, charsPerToken: number, wideCharTokens: number): number {
  const wide = wideCodeUnits(text)
  return (text.length - wide) / charsPerToken + wide * wideCharTokens
}

/**
 * @example
 * const tokenizer = calibratedTokenizer({ charsPerToken: tokenizerProfiles.anthropic })
 * const runtime = new AgentRuntime(extensions, policy, { tokenizer })
 */
export function calibratedTokenizer(options: CalibratedTokenizerOptions = {}): CalibratedTokenizer {
  const charsPerToken = options.charsPerToken ?? tokenizerProfiles.default!
  const wideCharTokens = options.wideCharTokens ?? 1.1
  const margin = options.margin ?? 1.05
  const learningRate = Math.min(1, Math.max(0, options.learningRate ?? 0.2))
  let scale = 1
  if (options.samples?.length) {
    let raw = 0
    let actual = 0
    for (const sample of options.samples) {
      raw += rawCount(sample.text, charsPerToken, wideCharTokens)
      actual += sample.tokens
    }
    if (raw > 0 && actual > 0) scale = actual / raw
  }
  return {
    name: options.name ?? `calibrated-${charsPerToken}`,
    get scale() {
      return scale
    },
    count(text: string): number {
      return Math.ceil(rawCount(text, charsPerToken, wideCharTokens) * scale * margin)
    },
    observe(estimatedTokens: number, actualTokens: number): void {
      if (!(estimatedTokens > 0) || !(actualTokens > 0)) return
      // The estimate already includes `scale * margin`; the ratio says how far off that was.
      const ratio = actualTokens / (estimatedTokens / margin)
      // Clamped: one odd response (cached prompt accounting, images) must not swing the budget wildly.
      const next = scale * Math.min(2, Math.max(0.5, ratio))
      scale = Math.min(4, Math.max(0.25, scale + (next - scale) * learningRate))
    },
  }
}

/** A calibrated estimate with the character ratio of the model's provider family. */
export function tokenizerForModel(
  model: Pick<LanguageModel, 'provider'>,
  options: Omit<CalibratedTokenizerOptions, 'charsPerToken'> = {},
): CalibratedTokenizer {
  const family = model.provider.split(/[.:/-]/)[0]!.toLowerCase()
  return calibratedTokenizer({
    ...options,
    charsPerToken: tokenizerProfiles[family] ?? tokenizerProfiles.default!,
    name: options.name ?? `calibrated-${family}`,
  })
}
