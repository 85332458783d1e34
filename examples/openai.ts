// An agent with one tool on the real OpenAI API (Responses by default, or Chat Completions).
// Run it with: OPENAI_API_KEY=sk-... pnpm tsx --conditions=@spindle/source examples/openai.ts
// Optional: OPENAI_MODEL (default gpt-5.4-mini), OPENAI_API=chat (Chat Completions instead of Responses),
// OPENAI_BASE_URL (any OpenAI-compatible server, e.g. http://localhost:11434/v1 for Ollama with OPENAI_API=chat).
// Without a key it prints these instructions and exits 0.
import { pathToFileURL } from 'node:url'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, type RunOutput } from '@spindle/core'

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: z.object({ city: z.string() }),
  idempotent: true,
  execute: ({ city }) => ({ city, temperatureC: city === 'Paris' ? 18 : 24, sky: 'clear' }),
})

export async function main(log: (line: string) => void = console.log): Promise<RunOutput | undefined> {
  const apiKey = process.env.OPENAI_API_KEY
  if (!apiKey) {
    log('Set OPENAI_API_KEY to run this example against the OpenAI API:')
    log('  OPENAI_API_KEY=sk-... pnpm tsx --conditions=@spindle/source examples/openai.ts')
    log('Optional: OPENAI_MODEL=<model id> (default gpt-5.4-mini), OPENAI_API=chat, OPENAI_BASE_URL=<compatible server URL>.')
    return undefined
  }
  // Loaded only when a key is set, so the instructions above print even where the package is not installed.
  const { createOpenAI } = await import('@spindle/openai')
  const openai = createOpenAI({
    apiKey,
    ...(process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {}),
    defaultApi: process.env.OPENAI_API === 'chat' ? 'chat' : 'responses',
  })
  const modelId = process.env.OPENAI_MODEL ?? 'gpt-5.4-mini'
  // The plugin registers `openai:<model>` ids in the ProviderRegistry.
  const runtime = new AgentRuntime(new Extensions().use(openai), { maxSteps: 5 })
  const stream = runtime.stream({
    agent: {
      name: 'weather',
      instructions: 'Answer with facts from your tools, in one sentence.',
      model: `openai:${modelId}`,
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
