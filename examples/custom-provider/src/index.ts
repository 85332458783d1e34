// Public entry of spindle-provider-ollama: an example third-party provider plugin for Spindle.
export { createOllama, type OllamaProvider, type OllamaProviderOptions } from './ollama-provider.js'
export { OllamaChatModel, type OllamaModelSettings } from './ollama-chat-model.js'
export { convertRequest, type OllamaChatBody, type OllamaMessage } from './convert-request.js'
export { mapOllamaError } from './map-ollama-error.js'
