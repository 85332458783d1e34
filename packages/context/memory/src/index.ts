// Public entry of @spindle/context-memory: semantic recall over the EmbeddingStore and structured working memory.
// Exact OpenAI token counting is a separate entry: `@spindle/context-memory/tokenizers`.
export { semanticRecall, type MemoryScope, type SemanticRecall, type SemanticRecallOptions } from './semantic-recall.js'
export { workingMemory, workingMemoryMetadataKey, type WorkingMemory, type WorkingMemoryOptions } from './working-memory.js'
export { messageText } from './message-text.js'
