// Checks mcpTools() options at the boundary (zod), so a mistyped transport or limit fails at once with a
// ConfigurationError that says what to fix, instead of a protocol error from deep inside the SDK.
import { ConfigurationError } from '@spindle/core'
import { z } from 'zod'

const maxTimerMs = 2_147_483_647
const milliseconds = z.number().int().positive().max(maxTimerMs)
const stringRecord = z.record(z.string(), z.string())

const stdioTransport = z.object({
  type: z.literal('stdio'),
  command: z.string().trim().min(1, 'the stdio transport needs a `command` (the server executable)'),
  args: z.array(z.string()).optional(),
  env: stringRecord.optional(),
  cwd: z.string().min(1).optional(),
  stderr: z.enum(['inherit', 'ignore']).optional(),
})

const httpTransport = z.object({
  type: z.literal('http'),
  url: z.string().superRefine((value, context) => {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      context.addIssue({ code: 'custom', message: 'the http transport needs an absolute `url`, e.g. https://mcp.example.com/mcp' })
      return
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      context.addIssue({ code: 'custom', message: `the http transport \`url\` must use http: or https:, not ${url.protocol}` })
    if (url.username || url.password)
      context.addIssue({
        code: 'custom',
        message: 'the http transport `url` must not hold credentials; pass them in `headers` (e.g. { authorization: "Bearer …" })',
      })
  }),
  headers: stringRecord.optional(),
  fetch: z.custom<typeof fetch>((value) => typeof value === 'function', 'must be a fetch function').optional(),
})

const perTool = <T extends z.ZodType>(value: T) =>
  z.union([value, z.custom<(...args: never[]) => unknown>((candidate) => typeof candidate === 'function')]).optional()

const optionsSchema = z.object({
  name: z.string().trim().min(1, 'mcpTools needs a server `name`, e.g. { name: "github", transport: … }'),
  transport: z.discriminatedUnion('type', [stdioTransport, httpTransport], {
    error: 'must be { type: "stdio", command, args?, env? } or { type: "http", url, headers? }',
  }),
  effect: perTool(z.enum(['read', 'write', 'external', 'irreversible'])),
  needsApproval: perTool(z.boolean()),
  idempotent: perTool(z.boolean()),
  toolFilter: z.union([z.array(z.string()), z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function')]).optional(),
  timeoutMs: milliseconds.optional(),
  maxTotalTimeoutMs: milliseconds.optional(),
  onProgress: z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', 'must be a function').optional(),
  connectTimeoutMs: milliseconds.optional(),
  maxDescriptionChars: z.number().int().positive().optional(),
})

/** Throws a ConfigurationError naming every option that is wrong. */
export function checkMcpToolsOptions(options: unknown): void {
  const parsed = optionsSchema.safeParse(options)
  if (parsed.success) return
  const problems = parsed.error.issues.map((issue) => `${issue.path.length ? `\`${issue.path.join('.')}\`: ` : ''}${issue.message}`)
  throw new ConfigurationError(`[spindle/tools-mcp] invalid mcpTools options: ${problems.join('; ')}`, { cause: parsed.error })
}
