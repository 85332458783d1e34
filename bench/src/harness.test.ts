// The harness math (median / min / max, the balanced round order) and a quick kernel run of the Spindle variants, asserted.
import { describe, expect, it, vi } from 'vitest'
import { allocatedByArea, allocatedPerUnit, allocationSites, measure, roundOrder, summarize } from './harness.js'
import { spindleVariants } from './suites/kernel.js'
import { bareLoop, memoryRuntime, spindleRun, toolCounter } from './workload.js'

describe('harness', () => {
  it('summarizes odd and even samples', () => {
    expect(summarize([5, 1, 3])).toEqual({ median: 3, min: 1, max: 5 })
    expect(summarize([4, 1, 3, 10])).toEqual({ median: 3.5, min: 1, max: 10 })
    expect(summarize([7])).toEqual({ median: 7, min: 7, max: 7 })
    expect(() => summarize([])).toThrow(/at least one value/)
  })

  it('orders rounds as a Williams design: every variant at every position, and right after every other one, equally often', () => {
    expect(roundOrder(['a', 'b', 'c', 'd'], 0)).toEqual(['a', 'b', 'd', 'c'])
    expect(roundOrder(['a', 'b', 'c', 'd'], 1)).toEqual(['b', 'c', 'a', 'd'])
    expect(roundOrder(['a', 'b', 'c'], 3)).toEqual(['c', 'b', 'a'])
    expect(roundOrder([], 3)).toEqual([])
    expect(roundOrder(['only'], 7)).toEqual(['only'])
    for (let count = 2; count <= 9; count++) {
      const items = Array.from({ length: count }, (_, index) => index)
      const cycle = count % 2 ? 2 * count : count
      const atPosition = new Map<string, number>()
      const follows = new Map<string, number>()
      for (let round = 0; round < cycle; round++) {
        const order = roundOrder(items, round)
        expect([...order].sort((a, b) => a - b)).toEqual(items)
        order.forEach((item, position) => atPosition.set(`${item}@${position}`, (atPosition.get(`${item}@${position}`) ?? 0) + 1))
        for (let position = 1; position < count; position++)
          follows.set(`${order[position - 1]}>${order[position]}`, (follows.get(`${order[position - 1]}>${order[position]}`) ?? 0) + 1)
        // The next cycle repeats it.
        expect(roundOrder(items, round + cycle)).toEqual(order)
      }
      expect(atPosition.size, `n=${count}`).toBe(count * count)
      expect(new Set(atPosition.values()), `n=${count}`).toEqual(new Set([cycle / count]))
      expect(follows.size, `n=${count}`).toBe(count * (count - 1))
      expect(new Set(follows.values()), `n=${count}`).toEqual(new Set([cycle / count]))
    }
  })

  it('interleaves variants in the balanced order, skips warm-up rounds and divides by units', async () => {
    const order: string[] = []
    const variants = ['a', 'b', 'c'].map((name) => ({ name, run: () => void order.push(name) }))
    const samples = await measure(variants, { rounds: 3, warmup: 1, unitsPerRun: 10, runsPerSample: 2 })
    expect(order.join('')).toBe('aabbcc' + 'bbccaa' + 'ccaabb' + 'ccbbaa')
    for (const name of ['a', 'b', 'c']) {
      expect(samples.get(name)!.wall).toHaveLength(3)
      expect(samples.get(name)!.cpu).toHaveLength(3)
    }
  })
  it('runs a sample for at least minSampleMs, and divides by the operations it ran', async () => {
    // The harness's clock, driven by the test: each operation takes exactly 2 ms of it (a real 2-ms timer may fire
    // early against performance.now(), and once measured 1,995 µs in CI).
    let clock = 0
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock)
    const runs: number[] = []
    let current = 0
    const variant = {
      name: 'slow',
      before: () => void (current = 0),
      run: async () => {
        current++
        clock += 2
        await Promise.resolve()
      },
      after: () => void runs.push(current),
    }
    let samples: Awaited<ReturnType<typeof measure>>
    try {
      samples = await measure([variant], { rounds: 2, warmup: 0, unitsPerRun: 1, runsPerSample: 1, minSampleMs: 12 })
    } finally {
      now.mockRestore()
    }
    // A sample runs until 12 ms have passed (6 operations of 2 ms), and its wall time is per operation.
    expect(runs).toEqual([6, 6])
    expect(samples.get('slow')!.wall).toEqual([2_000, 2_000])
  })

  it('splits allocation by the innermost area on the stack (a helper counts for its caller) and adds up to the total', async () => {
    const kept: unknown[] = []
    // 64 arrays of 256 numbers per call: about 2 KB each (a double array's backing store).
    const rows = (count: number) => {
      for (let index = 0; index < count; index++) kept.push(Array.from({ length: 256 }, () => index + 0.5))
    }
    const areaA = () => rows(64)
    const areaB = () => rows(192)
    const operation = () => {
      kept.length = 0
      areaA()
      areaB()
    }
    const area = ({ functionName }: { functionName: string }) => (functionName === 'areaA' ? 'a' : functionName === 'areaB' ? 'b' : undefined)
    const split = await allocatedByArea(operation, { repeat: 40, unitsPerRun: 1, samplingInterval: 256, area, rest: 'rest' })
    const total = await allocatedPerUnit(operation, { repeat: 40, unitsPerRun: 1, samplingInterval: 256 })
    const [a, b, rest] = [split.get('a') ?? 0, split.get('b') ?? 0, split.get('rest') ?? 0]
    // `rows` has no area of its own: what it allocates goes to its caller, three times as much for b.
    expect(a).toBeGreaterThan(64 * 2_000 * 0.7)
    expect(b / a).toBeGreaterThan(2.4)
    expect(b / a).toBeLessThan(3.6)
    expect(rest).toBeLessThan((a + b) * 0.1)
    expect((a + b + rest) / total).toBeGreaterThan(0.8)
    expect((a + b + rest) / total).toBeLessThan(1.25)
  })
})

describe('allocation sites', () => {
  it('credits each function with what it allocates itself, per unit, largest first', async () => {
    const kept: unknown[] = []
    // Arrays of 256 slots allocated in the function's own frame (about 2 KB each); Array.from would be the allocating frame.
    function allocateWide() {
      // oxlint-disable-next-line unicorn/no-new-array -- a length, on purpose
      for (let index = 0; index < 48; index++) kept.push(new Array(256))
    }
    function allocateNarrow() {
      // oxlint-disable-next-line unicorn/no-new-array -- a length, on purpose
      for (let index = 0; index < 16; index++) kept.push(new Array(256))
    }
    const operation = () => {
      kept.length = 0
      allocateWide()
      allocateNarrow()
    }
    const sites = await allocationSites(operation, { repeat: 40, unitsPerRun: 2, samplingInterval: 256 })
    const wide = sites.find((site) => site.functionName === 'allocateWide')
    const narrow = sites.find((site) => site.functionName === 'allocateNarrow')
    // About 2 KB per array, per unit (2 units per run).
    expect(wide!.bytes).toBeGreaterThan((48 * 2_000 * 0.7) / 2)
    expect(wide!.bytes / narrow!.bytes).toBeGreaterThan(2.2)
    expect(wide!.bytes / narrow!.bytes).toBeLessThan(3.8)
    expect(wide!.url).toContain('harness.test.ts')
    expect(wide!.line).toBeGreaterThan(0)
    const sizes = sites.map((site) => site.bytes)
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a))
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
