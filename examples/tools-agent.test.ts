import { expect, it } from 'vitest'
import { main } from './tools-agent.js'

it('tools example: reads a file, fetches a loopback page, runs code, then writes only after approval', async () => {
  const lines: string[] = []
  const result = await main((line) => lines.push(line))
  const text = lines.join('\n')
  expect(text).toContain('→ read_file')
  expect(text).toContain('→ web_page')
  // The page was fetched (a refused host would be a tool error, with no result line).
  expect(lines.find((line) => line.startsWith('← ') && line.includes('Tea: 12'))).toBeDefined()
  expect(text).toContain('→ run_code')
  expect(lines.indexOf('finish reason: awaiting_approval')).toBeGreaterThan(-1)
  expect(lines.indexOf('✓ approved write-1')).toBeGreaterThan(lines.indexOf('finish reason: awaiting_approval'))
  expect(lines.at(-1)).toBe('finish reason: stop')
  expect(result).toBeDefined()
}, 60_000)
