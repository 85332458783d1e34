// The plugin-interface kits pass for core's built-ins and name what is wrong with a plugin that breaks the spec.
import { historyAdapter, instructionsAdapter, truncateCompaction, type CompactionRecord } from '@spindle/core'
import { safeCutPoints } from '@spindle/core/plugin-kit'
import { describe, expect, it } from 'vitest'
import {
  compactionStrategyProblems,
  contextAdapterProblems,
  describeCompactionStrategy,
  describeContextAdapter,
  describeRuntimeObserver,
  runtimeObserverProblems,
  sampleSessionWindow,
} from './describe-plugin-interfaces.js'

describeContextAdapter(() => instructionsAdapter)
describeContextAdapter(() => historyAdapter)
describeCompactionStrategy(() => truncateCompaction())
describeRuntimeObserver(() => ({ specificationVersion: 'v1', onEvent: () => {} }))

describe('the plugin-interface problems', () => {
  it('the sample window has safe cuts and one unsafe seq (between the tool call and its result)', () => {
    expect(safeCutPoints(sampleSessionWindow())).toEqual([1, 3, 4, 5])
  })

  it('name a missing version and a throwing apply of a context adapter', async () => {
    const problems = await contextAdapterProblems({
      name: 'broken',
      apply: () => {
        throw new Error('boom')
      },
    })
    expect(problems).toEqual([
      'specificationVersion is undefined, expected "v1": declare the spec version it implements',
      'apply threw on an ordinary session: boom',
    ])
  })

  it('name a cut between a tool call and its result', async () => {
    const unsafe: CompactionRecord = { throughSeq: 2, strategy: 'unsafe' }
    const problems = await compactionStrategyProblems({ specificationVersion: 'v1', name: 'unsafe', compact: async () => unsafe })
    expect(problems).toEqual(['throughSeq 2 is not a safe cut (1, 3, 4, 5): end on a seq safeCutPoints(window) returns (@spindle/core/plugin-kit)'])
  })

  it('name an observer that throws, with the event it threw on', async () => {
    const problems = await runtimeObserverProblems({
      specificationVersion: 'v1',
      onEvent: (event) => {
        if (event.type === 'run.finished') throw new Error('no span')
      },
    })
    expect(problems).toEqual(['onEvent threw on run.finished (the runtime drops the error and the observer misses the rest): no span'])
  })
})
