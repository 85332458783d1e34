// Every code sample of the site is type-checked against the workspace sources, and the runnable ones (```ts run)
// are executed offline: a sample that rots fails here.
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { docsDir, siteDir } from './build-site.js'
import { runSample, typeCheckSamples, writeSamples } from './check-samples.js'
import { extractSamples, type CodeSample } from './markdown-samples.js'

const samples: CodeSample[] = extractSamples(siteDir)
let files: Map<string, string>

beforeAll(() => {
  files = writeSamples(samples, join(docsDir, '.samples'))
})

describe('the code samples of the docs', () => {
  it('are many, and some are runnable', () => {
    expect(samples.length).toBeGreaterThan(20)
    expect(samples.filter((sample) => sample.run).length).toBeGreaterThan(5)
  })

  it('type-check against the workspace packages', () => {
    expect(typeCheckSamples(samples, files)).toEqual([])
  }, 300_000)

  it.each(samples.filter((sample) => sample.run).map((sample) => [`${sample.page}:${sample.line}`, sample] as const))(
    '%s runs offline',
    async (_, sample) => {
      await expect(runSample(files.get(sample.id)!)).resolves.toBeTypeOf('string')
    },
    120_000,
  )
})
