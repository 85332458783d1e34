import { expect, it } from 'vitest'
import { main } from './quickstart.js'

it('quickstart runs offline: two tool calls, then the answer, in 3 steps', async () => {
  const lines: string[] = []
  const output = await main((line) => lines.push(line))
  expect(output.finishReason).toBe('stop')
  expect(output.steps).toBe(3)
  expect(output.text).toContain('Lyon is warmer')
  expect(lines.filter((line) => line.startsWith('→ get_weather'))).toHaveLength(2)
  expect(lines.at(-1)).toBe('finish reason: stop after 3 steps')
})
