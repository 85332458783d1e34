// Suite 7 — providers: per-chunk overhead of @spindle/openai and @spindle/anthropic stream mapping vs consuming
// the official SDK's stream directly, both against the same loopback wire servers from @spindle/testing.
import Anthropic from '@anthropic-ai/sdk'
import { createAnthropic } from '@spindle/anthropic'
import type { LanguageModel } from '@spindle/core'
import { createOpenAI } from '@spindle/openai'
import { anthropicResponse, openaiChatWire, openaiResponsesWire, startAnthropicMessagesServer, startScriptedServer } from '@spindle/testing'
import OpenAI from 'openai'
import { type BenchConfig, cell, check, measure, type Report, type Variant } from '../harness.js'

async function spindleDeltas(model: LanguageModel, expected: number): Promise<void> {
  let deltas = 0
  let finished = false
  for await (const part of model.stream({ messages: [{ role: 'user', content: 'hi' }] })) {
    if (part.type === 'text-delta') deltas++
    else if (part.type === 'finish') finished = true
  }
  check(deltas === expected && finished, `${model.provider} mapped ${deltas} deltas, expected ${expected}`)
}

export async function providersSuite(config: BenchConfig, report: Report): Promise<void> {
  const chunks = config.quick ? 2_000 : 10_000
  const deltas = Array.from({ length: chunks }, (_, index) => `w${index % 10} `)
  const apiKey = 'sk-bench-loopback'
  const openaiServer = await startScriptedServer()
  const responsesReply = openaiResponsesWire.streamTurn({ text: deltas })
  const chatReply = openaiChatWire.streamTurn({ text: deltas })
  openaiServer.setHandler((request) => (request.path.endsWith('/responses') ? responsesReply : chatReply))
  const anthropicServer = await startAnthropicMessagesServer()
  const anthropicReply = anthropicResponse({ turn: { blocks: [{ type: 'text', text: deltas }] } })
  anthropicServer.scripted.setHandler(() => anthropicReply)
  try {
    const provider = createOpenAI({ name: 'loopback', apiKey, baseURL: `${openaiServer.url}/v1`, maxRetries: 0 })
    const anthropicProvider = createAnthropic({ apiKey, baseURL: anthropicServer.baseURL })
    const openaiClient = new OpenAI({ apiKey, baseURL: `${openaiServer.url}/v1`, maxRetries: 0 })
    const anthropicClient = new Anthropic({ apiKey, baseURL: anthropicServer.baseURL, maxRetries: 0 })
    const groups: Array<{ name: string; sdk: Variant; spindle: Variant }> = [
      {
        name: 'OpenAI Responses',
        sdk: {
          name: 'openai SDK responses stream',
          run: async () => {
            let count = 0
            const stream = await openaiClient.responses.create({ model: 'gpt-bench', input: 'hi', stream: true })
            for await (const event of stream) if (event.type === 'response.output_text.delta') count++
            check(count === chunks, `openai responses SDK got ${count} deltas`)
          },
        },
        spindle: { name: '@spindle/openai responses', run: () => spindleDeltas(provider.responses('gpt-bench'), chunks) },
      },
      {
        name: 'OpenAI Chat Completions',
        sdk: {
          name: 'openai SDK chat stream',
          run: async () => {
            let count = 0
            const stream = await openaiClient.chat.completions.create({ model: 'gpt-bench', messages: [{ role: 'user', content: 'hi' }], stream: true })
            for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) count++
            check(count === chunks, `openai chat SDK got ${count} deltas`)
          },
        },
        spindle: { name: '@spindle/openai chat', run: () => spindleDeltas(provider.chat('gpt-bench'), chunks) },
      },
      {
        name: 'Anthropic Messages',
        sdk: {
          name: 'anthropic SDK messages stream',
          run: async () => {
            let count = 0
            const stream = await anthropicClient.messages.create({
              model: 'claude-bench',
              max_tokens: 64,
              messages: [{ role: 'user', content: 'hi' }],
              stream: true,
            })
            for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') count++
            check(count === chunks, `anthropic SDK got ${count} deltas`)
          },
        },
        spindle: { name: '@spindle/anthropic', run: () => spindleDeltas(anthropicProvider('claude-bench'), chunks) },
      },
    ]
    const lines: Array<Array<string | number>> = []
    for (const group of groups) {
      const samples = await measure([group.sdk, group.spindle], { rounds: config.quick ? 3 : 11, warmup: 1, unitsPerRun: chunks })
      const sdk = samples.get(group.sdk.name)!
      for (const variant of [group.sdk, group.spindle]) {
        const { wall, cpu } = samples.get(variant.name)!
        const base = { suite: 'providers', case: `${group.name}: ${chunks} text deltas over loopback HTTP`, variant: variant.name, n: chunks }
        const wallRow = report.add({ ...base, metric: 'wall per chunk', unit: 'µs' }, wall)
        const cpuRow = report.add({ ...base, metric: 'cpu per chunk', unit: 'µs' }, cpu)
        const overhead =
          variant === group.sdk
            ? undefined
            : report.add(
                { ...base, metric: 'overhead per chunk over the SDK stream', unit: 'µs' },
                wall.map((value, index) => value - sdk.wall[index]!),
              )
        lines.push([group.name, variant.name, cell(wallRow), cell(cpuRow), overhead ? cell(overhead) : '—'])
      }
    }
    report.table(
      `Providers: stream mapping per chunk, ${chunks.toLocaleString('en-US')} text deltas from the loopback wire servers — median (min–max)`,
      ['API', 'variant', 'wall µs/chunk', 'CPU µs/chunk', 'overhead µs/chunk'],
      lines,
      'Both sides include the loopback server writing SSE, HTTP and the SDK parsing it; the overhead column is the same round’s SDK sample subtracted.',
    )
  } finally {
    await openaiServer.close()
    await anthropicServer.close()
  }
}
