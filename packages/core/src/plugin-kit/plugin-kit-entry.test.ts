// The two entries of @spindle/core: the root keeps the user API, `@spindle/core/plugin-kit` holds the helpers for
// plugin authors (and only there, so the root stays what an application needs).
import { describe, expect, it } from 'vitest'
import * as root from '@spindle/core'
import * as pluginKit from '@spindle/core/plugin-kit'

const pluginKitNames = [
  'applyRunPatch',
  'applyStoreWrite',
  'artifactSourceChunks',
  'boundExecutionOutcome',
  'boundJournalText',
  'clampArtifactRange',
  'collectArtifactSource',
  'compareEmbeddingMatches',
  'cosineSimilarity',
  'credentialHeaderValues',
  'findStoreBatch',
  'hasErrorMarker',
  'hashArgs',
  'leaseIsFree',
  'matchesEmbeddingFilter',
  'maxJournalCodeLength',
  'maxJournalMessageLength',
  'notifyObservers',
  'rankEmbeddingMatches',
  'readArtifactBytes',
  'rejectNaNListBounds',
  'requestSecrets',
  'runClaimMatches',
  'safeCutPoints',
  'splitBaseURL',
  'timeOrderedId',
  'toJsonValue',
  'toolResultParts',
  'untilAborted',
  'urlSecrets',
  'wellFormed',
  'wellFormedText',
]

describe('@spindle/core/plugin-kit', () => {
  it('exports exactly the plugin-author helpers', () => {
    expect(Object.keys(pluginKit).sort()).toEqual(pluginKitNames)
    for (const name of pluginKitNames) expect(typeof (pluginKit as Record<string, unknown>)[name], name).not.toBe('undefined')
  })

  it('is not mixed into the root entry, which keeps the user API', () => {
    const rootNames = Object.keys(root)
    expect(rootNames.filter((name) => pluginKitNames.includes(name))).toEqual([])
    expect(rootNames).toEqual(expect.arrayContaining(['AgentRuntime', 'Agent', 'defineTool', 'memoryStores', 'mockModel', 'SpindleError', 'ProviderError']))
  })
})
