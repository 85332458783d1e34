// BENCHMARKS.md from a report: the host-speed line and the targets table read the right rows.
import { describe, expect, it } from 'vitest'
import { benchmarksMarkdown } from './benchmarks-md.js'
import { kernelCase, kernelOnlyCase, Report } from './harness.js'

function kernelRow(report: Report, variant: string, n: number, metric: string, value: number, testCase = kernelCase): void {
  report.add({ suite: 'kernel', case: testCase, variant, n, metric, unit: metric.startsWith('allocated') ? 'KB' : 'µs' }, value)
}

describe('benchmarksMarkdown', () => {
  it('states the host speed from the bare loop at N = 100 and Spindle’s ratio to it', () => {
    const report = new Report()
    kernelRow(report, 'bare loop', 100, 'wall per step', 5.11)
    kernelRow(report, 'bare loop', 10, 'wall per step', 50)
    kernelRow(report, 'spindle run', 100, 'wall per step', 14.93)
    const text = benchmarksMarkdown(report, 12)
    expect(text).toContain('the bare loop (no framework) took 5.11 µs/step at N = 100 and `spindle run` 14.9 µs/step (2.92× the bare loop)')
  })

  it('takes the host speed from the kernel variants alone when the run has them', () => {
    const report = new Report()
    kernelRow(report, 'bare loop', 100, 'wall per step', 9, kernelCase)
    kernelRow(report, 'spindle run', 100, 'wall per step', 30, kernelCase)
    kernelRow(report, 'bare loop', 100, 'wall per step', 4, kernelOnlyCase)
    kernelRow(report, 'spindle run', 100, 'wall per step', 12, kernelOnlyCase)
    expect(benchmarksMarkdown(report, 1)).toContain('took 4 µs/step at N = 100 and `spindle run` 12 µs/step (3× the bare loop)')
  })

  it('says so when the run has no kernel figures, and marks targets without a figure n/a', () => {
    const text = benchmarksMarkdown(new Report(), 1)
    expect(text).toContain('- Host speed: no kernel figures in this run.')
    expect(text).toContain('| kernel spindle run, N=100: ≤ 25 µs/step (no peer loaded) | n/a | — |')
    expect(text).toContain('| kernel spindle run, N=100: ≤ 25 µs/step (interleaved with the peers) | n/a | — |')
  })

  it('marks each target met or not from its median', () => {
    const report = new Report()
    kernelRow(report, 'spindle run', 100, 'wall per step', 24.9)
    kernelRow(report, 'spindle run', 1_000, 'wall per step', 25.1)
    kernelRow(report, 'spindle run', 100, 'allocated per step', 11.9)
    kernelRow(report, 'spindle stream', 10, 'wall per step', 31, kernelOnlyCase)
    const text = benchmarksMarkdown(report, 1)
    expect(text).toContain('| kernel spindle run, N=100: ≤ 25 µs/step (interleaved with the peers) | 24.9 µs | yes |')
    expect(text).toContain('| kernel spindle run, N=1000: ≤ 25 µs/step (interleaved with the peers) | 25.1 µs | no |')
    // The kernel-only rounds are their own target lines: an interleaved row never stands in for them.
    expect(text).toContain('| kernel spindle run, N=100: ≤ 25 µs/step (no peer loaded) | n/a | — |')
    expect(text).toContain('| kernel spindle stream, N=10: ≤ 25 µs/step (no peer loaded) | 31 µs | no |')
    expect(text).toContain('| kernel spindle run, N=100: ≤ 10 KB allocated/step | 11.9 KB | no |')
  })
})
