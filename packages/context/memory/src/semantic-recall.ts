// semanticRecall: indexes a session's messages into the EmbeddingStore as they enter the context window, and
// before each step recalls the older messages (outside the window) most similar to the latest user message.
import type { ContextAdapter, ContextBuildInput, ContextDraft, EmbeddingMatch, EmbeddingModel, Plugin, SessionEntry } from '@spindle/core'
import { messageText } from './message-text.js'

/** Whose memory a plugin reads and writes: this `session` only, or every session of the same `resource` (`resourceId`: a user, a tenant). */
export type MemoryScope = 'session' | 'resource'

/** Options of `semanticRecall()`: the embedding model, the scope, how many messages to recall and how similar they must be. */
export interface SemanticRecallOptions {
  embeddingModel: EmbeddingModel
  /** `session`: recall from this session only; `resource`: from every session of the same `resourceId` (user, tenant). Default `session`. */
  scope?: MemoryScope
  /** Most messages recalled per step (default 4). */
  topK?: number
  /** Lowest cosine similarity recalled (default 0.25). */
  minScore?: number
  /** Which messages are indexed (default user and assistant). */
  roles?: Array<'user' | 'assistant' | 'tool'>
  /** Longest text kept from one message, indexed and recalled (default 1,000 characters). */
  maxMessageChars?: number
  /** Most characters of recalled text injected per step (default 3,000). */
  maxRecallChars?: number
  /** Prefix of the EmbeddingStore namespaces and marker ids (default `spindle:recall`). */
  namespacePrefix?: string
  /** Adapter and plugin name (default `semantic-recall`). */
  name?: string
}

/** The semantic recall plugin; its `adapter` indexes messages as they enter the window and recalls similar older ones. */
export interface SemanticRecall extends Plugin {
  readonly adapter: ContextAdapter
}

interface SessionState {
  namespace: string
  /** Highest seq indexed (also kept in the store as a marker record, so another process continues from it). */
  indexedThrough: number
  lastQuery?: string
  lastVector?: number[]
  lastCompactionSeq?: number
  lastSection?: string
}

const maxCachedSessions = 1_000

/**
 * @example
 * const extensions = new Extensions().use(sqliteStores({ path })).use(semanticRecall({ embeddingModel: hashEmbedding(), scope: 'resource' }))
 */
export function semanticRecall(options: SemanticRecallOptions): SemanticRecall {
  const scope = options.scope ?? 'session'
  const topK = options.topK ?? 4
  const minScore = options.minScore ?? 0.25
  const roles = new Set(options.roles ?? ['user', 'assistant'])
  const maxMessageChars = options.maxMessageChars ?? 1_000
  const maxRecallChars = options.maxRecallChars ?? 3_000
  const prefix = options.namespacePrefix ?? 'spindle:recall'
  const name = options.name ?? 'semantic-recall'
  const model = options.embeddingModel
  const batchSize = Math.max(1, model.maxBatchSize ?? 64)
  const sessions = new Map<string, SessionState>()
  const markerNamespace = `${prefix}:markers`
  const markerId = (sessionId: string) => `${prefix}:marker:${sessionId}`

  async function state(input: ContextBuildInput): Promise<SessionState> {
    let current = sessions.get(input.sessionId)
    if (current) {
      // Most recently used last, so the oldest is evicted first.
      sessions.delete(input.sessionId)
      sessions.set(input.sessionId, current)
      return current
    }
    const [session, marker] = await Promise.all([input.stores.sessions.getSession(input.sessionId), input.stores.embeddings.get(markerId(input.sessionId))])
    const resourceId = session?.resourceId
    const namespace = scope === 'resource' && resourceId ? `${prefix}:resource:${resourceId}` : `${prefix}:session:${input.sessionId}`
    current = { namespace, indexedThrough: typeof marker?.metadata.seq === 'number' ? marker.metadata.seq : 0 }
    sessions.set(input.sessionId, current)
    while (sessions.size > maxCachedSessions) sessions.delete(sessions.keys().next().value!)
    return current
  }

  /** Embeds the entries not indexed yet: the window's new ones, plus any gap left by a compaction this process never saw. */
  async function index(input: ContextBuildInput, current: SessionState): Promise<void> {
    const last = input.window.at(-1)
    if (!last || last.seq <= current.indexedThrough) return
    let pending: SessionEntry[] = input.window.filter((entry) => entry.seq > current.indexedThrough)
    // The window may start with messages a compaction carried over (the question of a long run, kept below the cut):
    // the gap is measured from the first entry after the cut, or what lies between them is never indexed.
    const compactedThrough = input.compaction?.throughSeq ?? 0
    const firstAfterCut = input.window.find((entry) => entry.seq > compactedThrough)?.seq ?? last.seq
    if (firstAfterCut > current.indexedThrough + 1) {
      const gap = await input.stores.sessions.listEntries(input.sessionId, { after: current.indexedThrough, before: firstAfterCut, kind: 'message' })
      const inGap = new Set(gap.map((entry) => entry.seq))
      pending = gap.concat(pending.filter((entry) => !inGap.has(entry.seq)))
    }
    const records: Array<{ id: string; text: string; seq: number; role: string }> = []
    for (const entry of pending) {
      if (entry.kind !== 'message' || !roles.has(entry.message.role as 'user')) continue
      const text = messageText(entry.message, maxMessageChars)
      if (text) records.push({ id: `${input.sessionId}:${entry.seq}`, text, seq: entry.seq, role: entry.message.role })
    }
    for (let start = 0; start < records.length; start += batchSize) {
      const batch = records.slice(start, start + batchSize)
      const { embeddings } = await model.embed(
        batch.map((record) => record.text),
        { signal: input.signal },
      )
      await input.stores.embeddings.upsert(
        batch.map((record, i) => ({
          id: record.id,
          vector: embeddings[i]!,
          content: record.text,
          namespace: current.namespace,
          metadata: { sessionId: input.sessionId, seq: record.seq, role: record.role },
        })),
      )
    }
    current.indexedThrough = last.seq
    // `sessionId` too: a store that evicts a session's records (the memory stores' retention) takes the marker with them.
    await input.stores.embeddings.upsert([
      { id: markerId(input.sessionId), vector: [1], namespace: markerNamespace, metadata: { sessionId: input.sessionId, seq: last.seq } },
    ])
  }

  async function recall(input: ContextBuildInput, current: SessionState): Promise<string | undefined> {
    const compactedThrough = input.compaction?.throughSeq ?? 0
    // In session scope everything is still in the window until the first compaction: nothing to recall.
    if (scope === 'session' && compactedThrough === 0) return undefined
    let query: string | undefined
    for (let i = input.window.length - 1; i >= 0 && !query; i--) {
      const entry = input.window[i]!
      if (entry.kind === 'message' && entry.message.role === 'user') query = messageText(entry.message, maxMessageChars)
    }
    if (!query) return undefined
    // One embedding and one search per user turn: tool steps of the same turn reuse the section.
    if (query === current.lastQuery && compactedThrough === current.lastCompactionSeq) return current.lastSection
    // A compaction in the middle of a turn re-runs the search, not the embedding.
    const vector =
      query === current.lastQuery && current.lastVector ? current.lastVector : (await model.embed([query], { signal: input.signal })).embeddings[0]!
    current.lastVector = vector
    // Messages still in the window come back too (the question matches itself): fetch extra, keep the older ones.
    const matches = await input.stores.embeddings.query({ vector, topK: topK * 3 + 4, namespace: current.namespace, minScore })
    const inWindow = new Set(input.window.map((entry) => entry.seq))
    const recalled = matches.filter((match) => outsideWindow(match, input.sessionId, compactedThrough, inWindow)).slice(0, topK)
    let section: string | undefined
    if (recalled.length) {
      const lines: string[] = []
      let used = 0
      for (const match of recalled.sort((a, b) => order(a) - order(b))) {
        const line = `- (${match.metadata.role}${match.metadata.sessionId === input.sessionId ? '' : ', another conversation'}) ${match.content ?? ''}`
        if (used + line.length > maxRecallChars) break
        used += line.length
        lines.push(line)
      }
      if (lines.length) section = `Recalled from earlier conversation (may be relevant to the latest message):\n${lines.join('\n')}`
    }
    current.lastQuery = query
    current.lastCompactionSeq = compactedThrough
    current.lastSection = section
    return section
  }

  const adapter: ContextAdapter = {
    specificationVersion: 'v1',
    name,
    async apply(draft: ContextDraft, input: ContextBuildInput) {
      const current = await state(input)
      await index(input, current)
      const section = await recall(input, current)
      if (section) draft.system.push(section)
    },
  }

  return {
    name: `context-memory:${name}`,
    adapter,
    setup(extensions) {
      extensions.addContextAdapter(adapter)
    },
  }
}

/** Another session's message, or one of this session's that the window no longer holds (a carried one it still does). */
function outsideWindow(match: EmbeddingMatch, sessionId: string, compactedThrough: number, inWindow: Set<number>): boolean {
  if (match.metadata.sessionId !== sessionId) return true
  return typeof match.metadata.seq === 'number' && match.metadata.seq <= compactedThrough && !inWindow.has(match.metadata.seq)
}

/** Oldest first within a session, so recalled turns read in order. */
function order(match: EmbeddingMatch): number {
  return typeof match.metadata.seq === 'number' ? match.metadata.seq : 0
}
