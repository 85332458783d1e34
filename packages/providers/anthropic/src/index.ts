// Public entry of @spindle/anthropic: the Anthropic Messages API as a Spindle provider.
export { anthropic, createAnthropic, type AnthropicProvider, type AnthropicProviderOptions } from './anthropic-provider.js'
export { AnthropicMessagesModel, type AnthropicModelSettings } from './anthropic-messages-model.js'
export { anthropicRequestOptionsSchema, type AnthropicRequestOptions } from './anthropic-provider-options.js'
export { anthropicModelCapabilities } from './model-capabilities.js'
export type { RetryOptions } from './retry-policy.js'
