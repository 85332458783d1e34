import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../errors/errors.js'
import { createRuntimePolicy, isEffectClass, mergePolicy, runtimePolicySchema, type RuntimePolicyInput } from './runtime-policy.js'

function caught(fn: () => unknown): Error {
  try {
    fn()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a throw')
}

describe('createRuntimePolicy', () => {
  it('fills every default', () => {
    expect(createRuntimePolicy()).toEqual({
      maxSteps: 16,
      maxToolCalls: 64,
      maxParallelTools: 8,
      toolTimeoutMs: 60_000,
      runTimeoutMs: 600_000,
      maxInputBytes: 1_000_000,
      maxToolOutputBytes: 32_000,
      maxToolMediaBytes: 5_000_000,
      budget: {},
      tools: { deny: [] },
      requireApproval: [],
      onViolation: 'tool_error',
      modelRetry: { maxRetries: 2, initialDelayMs: 250, maxDelayMs: 8_000 },
      maxLengthContinuations: 2,
      doomLoopThreshold: 3,
      onContention: 'queue',
      maxQueue: 16,
      queueTimeoutMs: 30_000,
      idempotencyTtlMs: 86_400_000,
      compaction: { threshold: 0.8, target: 0.5 },
      leaseMs: 30_000,
    })
  })

  it('keeps given values and fills defaults inside nested objects', () => {
    const policy = createRuntimePolicy({
      maxSteps: 3,
      budget: { maxTotalTokens: 1_000 },
      tools: { allow: ['read'] },
      modelRetry: { maxRetries: 0 },
      compaction: { threshold: 0.9 },
      onContention: 'reject',
    })
    expect(policy.maxSteps).toBe(3)
    expect(policy.budget).toEqual({ maxTotalTokens: 1_000 })
    expect(policy.tools).toEqual({ allow: ['read'], deny: [] })
    expect(policy.modelRetry).toEqual({ maxRetries: 0, initialDelayMs: 250, maxDelayMs: 8_000 })
    expect(policy.compaction).toEqual({ threshold: 0.9, target: 0.5 })
    expect(policy.onContention).toBe('reject')
    expect(policy.maxToolCalls).toBe(64)
  })

  it('accepts requireApproval as names / effect classes or as a predicate', () => {
    expect(createRuntimePolicy({ requireApproval: ['deploy', 'irreversible'] }).requireApproval).toEqual(['deploy', 'irreversible'])
    const predicate = ({ toolName }: { toolName: string }) => toolName === 'deploy'
    expect(createRuntimePolicy({ requireApproval: predicate }).requireApproval).toBe(predicate)
  })

  it('an invalid value is a ConfigurationError naming the field, with the zod error as cause', () => {
    const cases: Array<[RuntimePolicyInput, string]> = [
      [{ maxSteps: 0 }, 'maxSteps'],
      [{ maxSteps: 1.5 }, 'maxSteps'],
      [{ maxToolCalls: -1 }, 'maxToolCalls'],
      [{ toolTimeoutMs: 'fast' as never }, 'toolTimeoutMs'],
      [{ onContention: 'wait' as never }, 'onContention'],
      [{ onViolation: 'explode' as never }, 'onViolation'],
      [{ doomLoopThreshold: 1 }, 'doomLoopThreshold'],
      [{ budget: { maxCostUsd: 0 } }, 'budget.maxCostUsd'],
      [{ compaction: { threshold: 1.5 } }, 'compaction.threshold'],
      [{ modelRetry: { maxRetries: -1 } }, 'modelRetry.maxRetries'],
      [{ requireApproval: 'deploy' as never }, 'requireApproval'],
    ]
    for (const [input, field] of cases) {
      const error = caught(() => createRuntimePolicy(input))
      expect(error, field).toBeInstanceOf(ConfigurationError)
      expect(error.message, field).toContain('invalid RuntimePolicy')
      expect(error.message, field).toContain(`at ${field}`)
      expect(error.cause, field).toBeDefined()
    }
  })

  it('names every bad field at once', () => {
    const error = caught(() => createRuntimePolicy({ maxSteps: -1, maxQueue: -1 }))
    expect(error.message).toContain('at maxSteps')
    expect(error.message).toContain('at maxQueue')
  })

  it('rejects unknown keys (strict), naming them, so a typo never silently disables a limit', () => {
    const error = caught(() => createRuntimePolicy({ maxStep: 3 } as never))
    expect(error).toBeInstanceOf(ConfigurationError)
    expect(error.message).toContain('maxStep')
    expect(() => runtimePolicySchema.parse({ maxTokens: 1 })).toThrow()
  })

  it('rejects unknown keys inside nested objects too (a misspelt budget must not disable the budget)', () => {
    const nested: Array<[RuntimePolicyInput, string]> = [
      [{ budget: { maxTokens: 1_000 } } as never, 'maxTokens'],
      [{ tools: { allowed: ['read'] } } as never, 'allowed'],
      [{ modelRetry: { retries: 1 } } as never, 'retries'],
      [{ compaction: { threshhold: 0.5 } } as never, 'threshhold'],
    ]
    for (const [input, key] of nested) {
      const error = caught(() => createRuntimePolicy(input))
      expect(error, key).toBeInstanceOf(ConfigurationError)
      expect(error.message, key).toContain(key)
    }
  })
})

describe('mergePolicy', () => {
  it('returns the base itself without overrides', () => {
    const base = createRuntimePolicy({ maxSteps: 5 })
    expect(mergePolicy(base, undefined)).toBe(base)
  })

  it('overrides top-level fields and keeps the rest of the base, without mutating it', () => {
    const base = createRuntimePolicy({ maxSteps: 5, maxToolCalls: 10, onContention: 'reject' })
    const snapshot = structuredClone(base)
    const merged = mergePolicy(base, { maxSteps: 2, toolTimeoutMs: 1_000 })
    expect(merged.maxSteps).toBe(2)
    expect(merged.toolTimeoutMs).toBe(1_000)
    expect(merged.maxToolCalls).toBe(10)
    expect(merged.onContention).toBe('reject')
    expect(base).toEqual(snapshot)
  })

  it('keeps the lower of each budget: an agent adds limits, never lifts one', () => {
    const base = createRuntimePolicy({ budget: { maxTotalTokens: 100, maxCostUsd: 1 } })
    expect(mergePolicy(base, { budget: { maxOutputTokens: 50, maxTotalTokens: 1_000 } }).budget).toEqual({
      maxOutputTokens: 50,
      maxTotalTokens: 100,
      maxCostUsd: 1,
    })
    expect(mergePolicy(base, { budget: { maxCostUsd: 0.5 } }).budget).toEqual({ maxTotalTokens: 100, maxCostUsd: 0.5 })
  })

  it('adds the deny lists up and intersects the allow lists', () => {
    const base = createRuntimePolicy({ tools: { deny: ['rm'] } })
    expect(mergePolicy(base, { tools: { allow: ['ls', 'rm'] } }).tools).toEqual({ allow: ['ls', 'rm'], deny: ['rm'] })
    expect(mergePolicy(base, { tools: { deny: ['curl'] } }).tools).toEqual({ deny: ['rm', 'curl'] })
    const allowing = createRuntimePolicy({ tools: { allow: ['ls', 'cat'] } })
    expect(mergePolicy(allowing, { tools: { allow: ['cat', 'rm'] } }).tools).toEqual({ allow: ['cat'], deny: [] })
    expect(mergePolicy(allowing, { tools: { deny: ['cat'] } }).tools).toEqual({ allow: ['ls', 'cat'], deny: ['cat'] })
  })

  it('asks for approval when either policy does (lists add up; a predicate is combined with a list)', async () => {
    const base = createRuntimePolicy({ requireApproval: ['write'] })
    expect(mergePolicy(base, { requireApproval: ['deploy'] }).requireApproval).toEqual(['write', 'deploy'])
    const combined = mergePolicy(base, { requireApproval: ({ toolName }) => toolName === 'pay' }).requireApproval
    expect(typeof combined).toBe('function')
    const decide = combined as Exclude<typeof combined, string[]>
    const tool = (effect?: 'read' | 'write') => ({ name: 'x', effect }) as never
    expect(await decide({ toolName: 'pay', tool: tool('read'), args: {} })).toBe(true)
    expect(await decide({ toolName: 'save', tool: tool('write'), args: {} })).toBe(true)
    expect(await decide({ toolName: 'look', tool: tool('read'), args: {} })).toBe(false)
  })

  it('merges nested settings key by key', () => {
    const base = createRuntimePolicy({ modelRetry: { maxRetries: 5, initialDelayMs: 10, maxDelayMs: 100 }, compaction: { threshold: 0.9, target: 0.4 } })
    const merged = mergePolicy(base, { modelRetry: { maxRetries: 1 }, compaction: { target: 0.3 } })
    expect(merged.modelRetry).toEqual({ maxRetries: 1, initialDelayMs: 10, maxDelayMs: 100 })
    expect(merged.compaction).toEqual({ threshold: 0.9, target: 0.3 })
  })

  it('validates the overrides', () => {
    expect(() => mergePolicy(createRuntimePolicy(), { maxSteps: 0 })).toThrow(ConfigurationError)
    expect(() => mergePolicy(createRuntimePolicy(), { bogus: true } as never)).toThrow(/bogus/)
  })
})

describe('isEffectClass', () => {
  it('recognizes the four effect classes only', () => {
    expect(['read', 'write', 'external', 'irreversible'].every(isEffectClass)).toBe(true)
    expect(isEffectClass('deploy')).toBe(false)
  })
})
