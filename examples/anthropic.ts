// An agent with one tool on the real Anthropic Messages API, with extended thinking.
// Run it with: ANTHROPIC_API_KEY=sk-ant-... pnpm tsx --conditions=@spindle/source examples/anthropic.ts
// Optional: ANTHROPIC_MODEL (default claude-sonnet-5), ANTHROPIC_BASE_URL (a proxy or compatible server).
// Without a key it prints these instructions and exits 0.
import { pathToFileURL } from 'node:url'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, type RunOutput } from '@spindle/core'
import { createAnthropic } from '@spindle/anthropic'

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: z.object({ city: z.string() }),
  idempotent: true,
  execute: ({ city }) => ({ city, temperatureC: city === 'Paris' ? 18 : 24, sky: 'clear' }),
})

export async function main(log: (line: string) => void = console.log): Promise<RunOutput | undefined> {
  const apiKey = process.env.ANTHROPIC_API_KEY
  if (!apiKey) {
    log('Set ANTHROPIC_API_KEY to run this example against the Anthropic API:')
    log('  ANTHROPIC_API_KEY=sk-ant-... pnpm tsx --conditions=@spindle/source examples/anthropic.ts')
    log('Optional: ANTHROPIC_MODEL=<model id> (default claude-sonnet-5), ANTHROPIC_BASE_URL=<proxy URL>.')
    return undefined
  }
  const anthropic = createAnthropic({ apiKey, ...(process.env.ANTHROPIC_BASE_URL ? { baseURL: process.env.ANTHROPIC_BASE_URL } : {}) })
  const modelId = process.env.ANTHROPIC_MODEL ?? 'claude-sonnet-5'
  // The plugin registers `anthropic:<model>` ids; a model instance carries per-model options such as thinking.
  const runtime = new AgentRuntime(new Extensions().use(anthropic), { maxSteps: 5 })
  const stream = runtime.stream({
    agent: {
      name: 'weather',
      instructions: 'Answer with facts from your tools, in one sentence.',
      model: anthropic(modelId, { thinking: { type: 'enabled', budget_tokens: 1024 } }),
      tools: [getWeather],
    },
    input: 'Which is warmer today, Paris or Lyon?',
  })
  for await (const event of stream) {
    if (event.type === 'tool.call') log(`→ ${event.toolName}(${JSON.stringify(event.args)})`)
    if (event.type === 'tool.result') log(`← ${JSON.stringify(event.result)}`)
  }
  const output = await stream.result
  if (output.error) log(`error: ${output.error.code}: ${output.error.message}`)
  log(`answer: ${output.text}`)
  log(`finish reason: ${output.finishReason} after ${output.steps} steps, ${output.usage.inputTokens} input / ${output.usage.outputTokens} output tokens`)
  return output
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
