// The error-class check passes for core's classes and names what is wrong with a class without its own marker.
import { ConfigurationError, ProviderError, SpindleError, StoreError } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { describeErrorClass, errorClassProblems } from './describe-error-class.js'

class UnmarkedError extends SpindleError {
  constructor(message: string) {
    super('unmarked', message)
    this.name = 'UnmarkedError'
  }
}

class InstanceofError extends SpindleError {
  constructor(message: string) {
    super('instanceof_checked', message)
    this.name = 'InstanceofError'
  }

  static override isInstance(value: unknown): value is InstanceofError {
    return value instanceof InstanceofError
  }
}

describeErrorClass(StoreError, () => new StoreError('m'))
describeErrorClass(ProviderError, () => new ProviderError('m', { status: 500 }))

describe('errorClassProblems', () => {
  it('is empty for a core class', () => {
    expect(errorClassProblems(ConfigurationError, new ConfigurationError('m'))).toEqual([])
  })

  it('names a class that inherits SpindleError.isInstance', () => {
    expect(errorClassProblems(UnmarkedError, new UnmarkedError('m'))).toEqual([
      'UnmarkedError has no static isInstance of its own (it inherits SpindleError.isInstance, which is true for every Spindle error)',
      "UnmarkedError.isInstance(new SpindleError()) is true: the marker must be the class's own",
    ])
  })

  it('names a class whose isInstance fails for an error from another package copy', () => {
    expect(errorClassProblems(InstanceofError, new InstanceofError('m'))).toEqual([
      'InstanceofError.isInstance is false for its error from another copy of the package (use a Symbol.for marker and hasErrorMarker, not instanceof)',
    ])
  })
})
