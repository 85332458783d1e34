// The harness math (median / min / max, rotation) and a quick kernel run of the Spindle variants, asserted.
import { describe, expect, it } from 'vitest'
import { measure, rotate, summarize } from './harness.js'
import { spindleVariants } from './suites/kernel.js'
import { bareLoop, memoryRuntime, spindleRun, toolCounter } from './workload.js'

describe('harness', () => {
  it('summarizes odd and even samples', () => {
    expect(summarize([5, 1, 3])).toEqual({ median: 3, min: 1, max: 5 })
    expect(summarize([4, 1, 3, 10])).toEqual({ median: 3.5, min: 1, max: 10 })
    expect(summarize([7])).toEqual({ median: 7, min: 7, max: 7 })
    expect(() => summarize([])).toThrow(/at least one value/)
  })

  it('rotates so that every variant leads one round', () => {
    expect(rotate(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c'])
    expect(rotate(['a', 'b', 'c'], 1)).toEqual(['b', 'c', 'a'])
    expect(rotate(['a', 'b', 'c'], 5)).toEqual(['c', 'a', 'b'])
    expect(rotate([], 3)).toEqual([])
  })

  it('interleaves variants in a rotated order, skips warm-up rounds and divides by units', async () => {
    const order: string[] = []
    const variants = ['a', 'b', 'c'].map((name) => ({ name, run: () => void order.push(name) }))
    const samples = await measure(variants, { rounds: 3, warmup: 1, unitsPerRun: 10, runsPerSample: 2 })
    expect(order.join('')).toBe('aabbcc' + 'bbccaa' + 'ccaabb' + 'aabbcc')
    for (const name of ['a', 'b', 'c']) {
      expect(samples.get(name)!.wall).toHaveLength(3)
      expect(samples.get(name)!.cpu).toHaveLength(3)
    }
  })
})

describe('kernel workload', () => {
  it('the Spindle variants and the bare loop do the asserted work', async () => {
    const before = toolCounter.executions
    for (const variant of spindleVariants()) {
      variant.fresh?.(10)
      await variant.run(10)
    }
    await bareLoop(10)
    expect(toolCounter.executions - before).toBe(30)
  })

  it('an under-provisioned run fails its assertion instead of producing a number', async () => {
    const runtime = memoryRuntime(2) // maxSteps 3: a 10-step script stops early with max_steps
    await expect(spindleRun(runtime, 10)).rejects.toThrow(/assertion failed: spindle run: finishReason max_steps/)
  })
})
