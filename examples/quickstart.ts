// Quickstart: an agent with one tool, run offline on the scripted demo model, three steps.
// Run it with `pnpm demo`.
import { pathToFileURL } from 'node:url'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, mockModel, type RunOutput } from '@spindle/core'

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: z.object({ city: z.string() }),
  idempotent: true,
  effect: 'read',
  execute: ({ city }) => ({ city, temperatureC: city === 'Paris' ? 18 : 24, sky: 'clear' }),
})

/** The demo model is scripted: it calls the tool twice, then answers from the results. */
const demoModel = () =>
  mockModel(
    [
      { reasoning: 'I need the weather in both cities.', toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }] },
      { toolCalls: [{ name: 'get_weather', args: { city: 'Lyon' } }] },
      { text: 'Paris is 18 °C and Lyon is 24 °C, both under a clear sky: Lyon is warmer by 6 °C.' },
    ],
    { modelId: 'demo' },
  )

export async function main(log: (line: string) => void = console.log): Promise<RunOutput> {
  const runtime = new AgentRuntime(new Extensions(), { maxSteps: 5 })
  const stream = runtime.stream({
    agent: { name: 'weather', instructions: 'Answer with facts from your tools.', model: demoModel(), tools: [getWeather] },
    input: 'Which is warmer today, Paris or Lyon?',
  })
  for await (const event of stream) {
    if (event.type === 'tool.call') log(`→ ${event.toolName}(${JSON.stringify(event.args)})`)
    if (event.type === 'tool.result') log(`← ${JSON.stringify(event.result)}`)
  }
  const output = await stream.result
  log(`answer: ${output.text}`)
  log(`finish reason: ${output.finishReason} after ${output.steps} steps`)
  return output
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
