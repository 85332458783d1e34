// BENCHMARKS.md from a report: the host-speed line and the targets table read the right rows.
import { describe, expect, it } from 'vitest'
import { benchmarksMarkdown } from './benchmarks-md.js'
import { Report } from './harness.js'

function kernelRow(report: Report, variant: string, n: number, metric: string, value: number): void {
  report.add({ suite: 'kernel', case: 'in-memory, one tool call per step', variant, n, metric, unit: metric.startsWith('allocated') ? 'KB' : 'µs' }, value)
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

  it('says so when the run has no kernel figures, and marks targets without a figure n/a', () => {
    const text = benchmarksMarkdown(new Report(), 1)
    expect(text).toContain('- Host speed: no kernel figures in this run.')
    expect(text).toContain('| kernel spindle run, N=100: ≤ 25 µs/step | n/a | — |')
  })

  it('marks each target met or not from its median', () => {
    const report = new Report()
    kernelRow(report, 'spindle run', 100, 'wall per step', 24.9)
    kernelRow(report, 'spindle run', 1_000, 'wall per step', 25.1)
    kernelRow(report, 'spindle run', 100, 'allocated per step', 11.9)
    const text = benchmarksMarkdown(report, 1)
    expect(text).toContain('| kernel spindle run, N=100: ≤ 25 µs/step | 24.9 µs | yes |')
    expect(text).toContain('| kernel spindle run, N=1000: ≤ 25 µs/step | 25.1 µs | no |')
    expect(text).toContain('| kernel spindle run, N=100: ≤ 10 KB allocated/step | 11.9 KB | no |')
  })
})
