// Entry `@spindle/context-memory/tokenizers`: exact OpenAI token counting (gpt-tokenizer), kept out of core.
export { encodingForModel, openaiTokenizer, type OpenAIEncoding, type OpenAITokenizerOptions } from './openai-tokenizer.js'
