import { describe, expect, it } from 'vitest'
import * as core from '../index.js'

describe('@spindle/core entry: request-scoped state', () => {
  it('exports every documented RuntimeStore symbol', () => {
    expect(typeof core.RuntimeStore).toBe('function')
    expect(typeof core.RuntimeStore.current).toBe('function')
    expect(typeof core.RuntimeStore.requireCurrent).toBe('function')
    expect(typeof core.RuntimeStore.mergeExperimentalContext).toBe('function')
    expect(typeof core.RuntimeStore.resolveFromExperimentalContext).toBe('function')
    expect(typeof core.createRuntime).toBe('function')
    expect(typeof core.withRuntime).toBe('function')
    expect(typeof core.RUNTIME_CONTEXT_FIELD).toBe('string')
    expect(typeof core.registerRuntimeResource).toBe('function')
    expect(typeof core.createRuntimeResourceRegistry).toBe('function')
    expect(typeof core.createRuntimeTool).toBe('function')
    expect(typeof core.DisposedValueError).toBe('function')
    expect(typeof core.RuntimeStoreError).toBe('function')
    expect(typeof core.Agent).toBe('function')
    expect(typeof core.Agent.prototype.asTool).toBe('function')
  })
})
