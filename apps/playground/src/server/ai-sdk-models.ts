// AI SDK models in the playground's picker: any AI SDK provider registered with `aiSdkProvider` (from
// @spindle/ai-sdk) resolves `"<provider>:<model>"` ids in the ProviderRegistry, so the picker and `enqueue` by id
// work with them. From the environment, an OpenAI-compatible server through @ai-sdk/openai-compatible:
//   AI_SDK_COMPATIBLE_BASE_URL=http://127.0.0.1:11434/v1 AI_SDK_COMPATIBLE_MODELS=llama3.2,qwen3 pnpm playground
// (AI_SDK_COMPATIBLE_NAME names the provider, default `ai-sdk`; AI_SDK_COMPATIBLE_API_KEY is sent when set).
// Any other AI SDK provider (Google, Mistral, Bedrock…) registers through `registerAiSdkModels` the same way.
import { ConfigurationError, type Extensions } from '@spindle/core'
import type { AiSdkProviderLike } from '@spindle/ai-sdk'
import type { ModelOption } from './compose-spindle.js'

/** One AI SDK provider and the models of it the picker offers. */
export interface AiSdkPickerProvider {
  /** The id prefix (`google` → `google:gemini-2.5-flash`). */
  name: string
  /** Shown in the picker (default: the name). */
  label?: string
  provider: AiSdkProviderLike
  models: readonly string[]
}

/**
 * Registers the providers with `aiSdkProvider` and returns their picker entries.
 *
 * @example
 * import { google } from '@ai-sdk/google'
 * models.push(...(await registerAiSdkModels(extensions, [{ name: 'google', label: 'Gemini', provider: google, models: ['gemini-2.5-flash'] }])))
 */
export async function registerAiSdkModels(extensions: Extensions, providers: readonly AiSdkPickerProvider[]): Promise<ModelOption[]> {
  if (providers.length === 0) return []
  const { aiSdkProvider } = await import('@spindle/ai-sdk')
  const options: ModelOption[] = []
  for (const entry of providers) {
    extensions.use(aiSdkProvider(entry.name, entry.provider))
    for (const model of entry.models) options.push({ id: `${entry.name}:${model}`, label: `${entry.label ?? entry.name} (AI SDK) — ${model}`, demo: false })
  }
  return options
}

/** The OpenAI-compatible provider the environment names (none when AI_SDK_COMPATIBLE_BASE_URL is unset). */
export async function aiSdkProvidersFromEnv(env: NodeJS.ProcessEnv): Promise<AiSdkPickerProvider[]> {
  const baseURL = env.AI_SDK_COMPATIBLE_BASE_URL
  if (!baseURL) return []
  const models = (env.AI_SDK_COMPATIBLE_MODELS ?? '')
    .split(',')
    .map((model) => model.trim())
    .filter(Boolean)
  if (models.length === 0)
    throw new ConfigurationError('[spindle/playground] AI_SDK_COMPATIBLE_BASE_URL is set: name its models in AI_SDK_COMPATIBLE_MODELS (comma-separated)')
  const name = env.AI_SDK_COMPATIBLE_NAME || 'ai-sdk'
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible')
  const provider = createOpenAICompatible({
    name,
    baseURL,
    includeUsage: true,
    ...(env.AI_SDK_COMPATIBLE_API_KEY ? { apiKey: env.AI_SDK_COMPATIBLE_API_KEY } : {}),
  })
  return [{ name, label: `OpenAI-compatible ${new URL(baseURL).host}`, provider, models }]
}

/** The hook `composeSpindle` calls: the environment's AI SDK providers, registered, as picker entries. */
export async function aiSdkModelsFromEnv(extensions: Extensions, env: NodeJS.ProcessEnv = process.env): Promise<ModelOption[]> {
  return registerAiSdkModels(extensions, await aiSdkProvidersFromEnv(env))
}
