// Entry of `@spindle/core/plugin-kit`: helpers for people who write stores, providers, tools, compaction strategies
// and observers. Applications import `@spindle/core`; nothing here is needed to run an agent.

// Error markers: give a plugin's own error class an `isInstance` that holds across copies of a package.
export { hasErrorMarker } from '../errors/spindle-error.js'

// Store authors: the rules every RunStore, SessionStore, EmbeddingStore and ArtifactStore applies the same way.
export { applyRunPatch, rejectNaNListBounds, runClaimMatches } from '../stores/run-record-rules.js'
export { applyStoreWrite } from '../util/apply-store-write.js'
export { findStoreBatch } from '../spec/store-batch.js'
export { cosineSimilarity } from '../stores/cosine.js'
export { compareEmbeddingMatches, matchesEmbeddingFilter, rankEmbeddingMatches } from '../stores/embedding-search.js'
export { artifactSourceChunks, clampArtifactRange, collectArtifactSource, readArtifactBytes, type CollectedArtifact } from '../stores/artifact-bytes.js'
export { timeOrderedId } from '../stores/time-ordered-id.js'
export { boundExecutionOutcome, boundJournalText, maxJournalCodeLength, maxJournalMessageLength } from '../tools/journal-text.js'

// Provider and tool authors: secrets to redact, abort handling, JSON-safe values, request text the APIs accept.
export { credentialHeaderValues, requestSecrets } from '../observability/credential-headers.js'
export { urlSecrets } from '../observability/url-secrets.js'
export { untilAborted } from '../runtime/model-step.js'
export { toJsonValue } from '../tools/to-json-value.js'
export { hashArgs } from '../runtime/hash-args.js'
export { wellFormed, wellFormedText } from './well-formed.js'
export { toolResultParts, type ToolResultContentPart } from './tool-result-content.js'
export { splitBaseURL, type SplitBaseURL } from './base-url.js'

// Run queues, watchers and hosts: whether a run's lease still holds it (core's rule, a dead owner's is free).
export { leaseIsFree } from '../runtime/owner-identity.js'

// Compaction and observer authors.
export { safeCutPoints } from '../compaction/safe-boundary.js'
export { notifyObservers } from '../observability/runtime-observer.js'
