// Suite 3 — streaming: per text chunk overhead of a run over 10,000 deltas vs consuming the model's stream directly.
import { AgentRuntime, Extensions, mockModel } from '@spindle/core'
import { type BenchConfig, cell, check, measure, type Report } from '../harness.js'

const chunks = 10_000
// Deltas shaped like a model's tokens: a word with its leading space. The run's secret redaction (on by default)
// holds each word back until the next delta shows where it ends, so every delta but the first still makes one
// text.delta event (the last word comes with the flush at the end of the answer).
const token = ' ab'
const text = token.repeat(chunks)

function textModel() {
  return mockModel([{ text, chunkSize: token.length }])
}

export async function streamingSuite(config: BenchConfig, report: Report): Promise<void> {
  const runtime = new AgentRuntime(new Extensions())
  const samples = await measure(
    [
      {
        name: 'model stream consumed directly',
        run: async () => {
          let received = ''
          let deltas = 0
          for await (const part of textModel().stream({ messages: [{ role: 'user', content: 'go' }] })) {
            if (part.type === 'text-delta') {
              received += part.delta
              deltas++
            }
          }
          check(deltas === chunks && received === text, `bare stream got ${deltas} deltas`)
        },
      },
      {
        name: 'spindle stream (events drained)',
        run: async () => {
          const stream = runtime.stream({ agent: { name: 'bench', model: textModel() }, input: 'go' })
          let deltas = 0
          let received = ''
          for await (const event of stream) {
            if (event.type === 'text.delta') {
              deltas++
              received += event.delta
            }
          }
          const output = await stream.result
          check(deltas === chunks + 1 && received === text && output.text === text, `spindle stream got ${deltas} text.delta events`)
        },
      },
      {
        name: 'spindle run',
        run: async () => {
          const output = await runtime.run({ agent: { name: 'bench', model: textModel() }, input: 'go' })
          check(output.text === text && output.finishReason === 'stop', 'spindle run text')
        },
      },
    ],
    { rounds: config.quick ? 5 : 15, warmup: 2, unitsPerRun: chunks },
  )
  const bare = samples.get('model stream consumed directly')!.wall
  const lines: Array<Array<string | number>> = []
  for (const [name, { wall, cpu }] of samples) {
    const base = { suite: 'streaming', case: `${chunks} text deltas`, variant: name, n: chunks }
    const wallRow = report.add({ ...base, metric: 'wall per chunk', unit: 'µs' }, wall)
    const cpuRow = report.add({ ...base, metric: 'cpu per chunk', unit: 'µs' }, cpu)
    // Overhead per round: the same round's bare sample subtracted (rounds are interleaved).
    const overhead = wall.map((value, index) => value - bare[index]!)
    const overheadRow = report.add({ ...base, metric: 'overhead per chunk over the bare stream', unit: 'µs' }, overhead)
    lines.push([name, cell(wallRow), cell(cpuRow), name.startsWith('model') ? '—' : cell(overheadRow)])
  }
  report.table(
    `Streaming: one answer of ${chunks.toLocaleString('en-US')} word deltas (\`'${token}'\`) — median (min–max)`,
    ['variant', 'wall µs/chunk', 'CPU µs/chunk', 'overhead µs/chunk'],
    lines,
  )
}
