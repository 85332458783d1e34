// RuntimePolicy: the limits and rules the runtime enforces before every action (zod-validated, with defaults).
import { z } from 'zod'
import { ConfigurationError } from '../errors/errors.js'
import type { Tool, ToolEffect } from '../tools/tool.js'

const approvalPredicate = z.custom<(call: { toolName: string; tool: Tool; args: unknown }) => boolean | Promise<boolean>>(
  (value) => typeof value === 'function',
  { message: 'requireApproval must be a list of tool names / effect classes or a predicate function' },
)

/** The zod schema of `RuntimePolicy`, with every default: what `createRuntimePolicy` validates against. */
export const runtimePolicySchema = z
  .object({
    /** Model calls per run. */
    maxSteps: z.number().int().positive().default(16),
    /** Tool executions per run. */
    maxToolCalls: z.number().int().nonnegative().default(64),
    /** Tool calls of one step executed at once. */
    maxParallelTools: z.number().int().positive().default(8),
    toolTimeoutMs: z.number().int().positive().default(60_000),
    runTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(10 * 60_000),
    /** Size of the request input (UTF-8 bytes of its JSON). */
    maxInputBytes: z.number().int().positive().default(1_000_000),
    /** Largest tool result (bytes of JSON) kept whole in the context; larger ones are truncated head-and-tail and kept whole as an artifact. */
    maxToolOutputBytes: z.number().int().positive().default(32_000),
    /**
     * Base64 bytes of the images one tool result sends to the model as images (default 5,000,000, Anthropic's
     * per-image limit): they are not part of `maxToolOutputBytes`. Images past it, and other binary media, are
     * stored as artifacts and named in a text note.
     */
    maxToolMediaBytes: z.number().int().positive().default(5_000_000),
    budget: z
      .object({
        maxInputTokens: z.number().int().positive().optional(),
        maxOutputTokens: z.number().int().positive().optional(),
        maxTotalTokens: z.number().int().positive().optional(),
        maxCostUsd: z.number().positive().optional(),
      })
      .strict()
      .default({}),
    tools: z
      .object({
        /** Only these tool names may run (all when absent). */
        allow: z.array(z.string()).optional(),
        /** These tool names never run. */
        deny: z.array(z.string()).default([]),
      })
      .strict()
      .default({ deny: [] }),
    /** Tool names or effect classes (`write`, `irreversible`…) that need a human decision, or a predicate. */
    requireApproval: z.union([z.array(z.string()), approvalPredicate]).default([]),
    /** What a violation does: end the run with `policy`, or return a tool error to the model. */
    onViolation: z.enum(['stop', 'tool_error']).default('tool_error'),
    modelRetry: z
      .object({
        maxRetries: z.number().int().nonnegative().default(2),
        initialDelayMs: z.number().int().nonnegative().default(250),
        maxDelayMs: z.number().int().nonnegative().default(8_000),
      })
      .strict()
      .default({ maxRetries: 2, initialDelayMs: 250, maxDelayMs: 8_000 }),
    /** A `length` finish continues the answer this many times before finishing with `length`. */
    maxLengthContinuations: z.number().int().nonnegative().default(2),
    /** The same tool call (name and arguments) this many times in a row ends the run with `policy`. */
    doomLoopThreshold: z.number().int().min(2).default(3),
    onContention: z.enum(['queue', 'reject']).default('queue'),
    maxQueue: z.number().int().nonnegative().default(16),
    queueTimeoutMs: z.number().int().nonnegative().default(30_000),
    /** A duplicate `idempotencyKey` on a session returns the existing run within this time. */
    idempotencyTtlMs: z
      .number()
      .int()
      .positive()
      .default(24 * 3600_000),
    compaction: z
      .object({
        /** Compact when the context would exceed this fraction of the usable window. */
        threshold: z.number().gt(0).lte(1).default(0.8),
        /** After compaction the window should use at most this fraction. */
        target: z.number().gt(0).lte(1).default(0.5),
        /** Tokens kept free for the model's answer. */
        outputReserve: z.number().int().nonnegative().optional(),
        /** Consecutive failures of the compaction strategy that open its circuit breaker (truncation is used meanwhile); default 3. */
        failureThreshold: z.number().int().positive().optional(),
        /** How long the breaker stays open (the strategy bypassed) once it opened, in ms; default 60,000. */
        cooldownMs: z.number().int().nonnegative().optional(),
      })
      .strict()
      .default({ threshold: 0.8, target: 0.5 }),
    /** Owner lease of a running run; a run whose lease expired may be recovered by another process. */
    leaseMs: z.number().int().positive().default(30_000),
  })
  // Strict at every level: a misspelt key (`budget: { maxTokens }`) must fail loudly, never silently drop a limit.
  .strict()

/** A validated policy with every default filled in (the output of `createRuntimePolicy`). */
export type RuntimePolicy = z.output<typeof runtimePolicySchema>
/** A partial policy as you write it: any field may be left out and gets its default. */
export type RuntimePolicyInput = z.input<typeof runtimePolicySchema>

/** Validates a partial policy and fills in the defaults; throws `ConfigurationError` naming the bad fields. */
export function createRuntimePolicy(input: RuntimePolicyInput = {}): RuntimePolicy {
  const result = runtimePolicySchema.safeParse(input)
  if (!result.success) throw new ConfigurationError(`[spindle/core] invalid RuntimePolicy: ${z.prettifyError(result.error)}`, { cause: result.error })
  return result.data
}

/**
 * Merges an agent's policy overrides into a base policy (the runtime's). The guards only tighten: the deny lists
 * add up, allow lists intersect, each budget keeps the lower limit, and a call needs approval when either policy
 * asks for it, so an agent (which may come with a request) never loosens what the runtime's owner set. Other
 * fields are the agent's where it sets them; nested settings (`modelRetry`, `compaction`) merge key by key.
 *
 * @example
 * mergePolicy(createRuntimePolicy({ tools: { deny: ['rm'] } }), { tools: { allow: ['ls', 'rm'] }, maxSteps: 4 })
 * // → tools: { allow: ['ls', 'rm'], deny: ['rm'] } (rm still never runs), maxSteps: 4
 */
export function mergePolicy(base: RuntimePolicy, overrides: RuntimePolicyInput | undefined): RuntimePolicy {
  if (!overrides) return base
  // Validated alone first, so that an error names the agent's own fields.
  const own = createRuntimePolicy(overrides)
  const merged: Record<string, unknown> = { ...base }
  for (const key of Object.keys(overrides) as Array<keyof RuntimePolicy>) merged[key] = own[key]
  if (overrides.modelRetry) merged.modelRetry = { ...base.modelRetry, ...overrides.modelRetry }
  if (overrides.compaction) merged.compaction = { ...base.compaction, ...overrides.compaction }
  if (overrides.budget) merged.budget = tighterBudget(base.budget, own.budget)
  if (overrides.tools) merged.tools = tighterTools(base.tools, own.tools)
  if (overrides.requireApproval) merged.requireApproval = eitherRequires(base.requireApproval, own.requireApproval)
  return createRuntimePolicy(merged as RuntimePolicyInput)
}

function tighterBudget(base: RuntimePolicy['budget'], own: RuntimePolicy['budget']): RuntimePolicy['budget'] {
  const budget: Record<string, number> = {}
  for (const key of ['maxInputTokens', 'maxOutputTokens', 'maxTotalTokens', 'maxCostUsd'] as const) {
    const limits = [base[key], own[key]].filter((limit): limit is number => limit !== undefined)
    if (limits.length) budget[key] = Math.min(...limits)
  }
  return budget
}

function tighterTools(base: RuntimePolicy['tools'], own: RuntimePolicy['tools']): RuntimePolicy['tools'] {
  const deny = [...new Set([...base.deny, ...own.deny])]
  if (base.allow === undefined) return own.allow === undefined ? { deny } : { allow: own.allow, deny }
  if (own.allow === undefined) return { allow: base.allow, deny }
  const allowed = new Set(base.allow)
  return { allow: own.allow.filter((name) => allowed.has(name)), deny }
}

type ApprovalRule = RuntimePolicy['requireApproval']

function eitherRequires(base: ApprovalRule, own: ApprovalRule): ApprovalRule {
  if (Array.isArray(base) && Array.isArray(own)) return [...new Set([...base, ...own])]
  const requires = (rule: ApprovalRule, call: { toolName: string; tool: Tool; args: unknown }) =>
    Array.isArray(rule) ? listedForApproval(rule, call.toolName, call.tool) : rule(call)
  return async (call) => (await requires(base, call)) || (await requires(own, call))
}

/** Whether a list of tool names and effect classes asks for a decision on this call. */
export function listedForApproval(requireApproval: readonly string[], toolName: string, tool: Tool): boolean {
  for (const entry of requireApproval) if (entry === toolName || entry === tool.id || (isEffectClass(entry) && entry === tool.effect)) return true
  return false
}

export function isEffectClass(value: string): value is ToolEffect {
  return value === 'read' || value === 'write' || value === 'external' || value === 'irreversible'
}
