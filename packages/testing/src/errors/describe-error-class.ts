// The conformance check for a plugin's error class: its own marker and static isInstance, so callers can tell its
// errors apart even when two copies of the plugin (or of @spindle/core) are installed, where instanceof fails.
import { SpindleError } from '@spindle/core'
import { describe, it } from 'vitest'
import { rule } from '../conformance/rule.js'

/** An error class as the check needs it: a constructor of Spindle errors with its own static `isInstance`. */
export interface CheckedErrorClass<E extends SpindleError = SpindleError> {
  readonly name: string
  readonly prototype: E
  isInstance(value: unknown): value is E
}

/**
 * What breaks the marker rules for `errorClass`, given one error it made: empty when the class declares its own
 * static `isInstance`, recognizes its error and a copy of it from another package copy (same own properties,
 * another prototype), is a SpindleError, and refuses a plain Error and a SpindleError of another class.
 */
export function errorClassProblems<E extends SpindleError>(errorClass: CheckedErrorClass<E>, error: E): string[] {
  const problems: string[] = []
  const name = errorClass.name
  if (!Object.hasOwn(errorClass, 'isInstance'))
    problems.push(`${name} has no static isInstance of its own (it inherits SpindleError.isInstance, which is true for every Spindle error)`)
  if (!errorClass.isInstance(error)) problems.push(`${name}.isInstance(its own error) is false`)
  if (!SpindleError.isInstance(error)) problems.push(`${name}'s error is not a SpindleError (SpindleError.isInstance is false)`)
  const copy = Object.create(Error.prototype) as Record<PropertyKey, unknown>
  for (const key of Reflect.ownKeys(error)) copy[key] = (error as unknown as Record<PropertyKey, unknown>)[key]
  if (!errorClass.isInstance(copy))
    problems.push(`${name}.isInstance is false for its error from another copy of the package (use a Symbol.for marker and hasErrorMarker, not instanceof)`)
  if (errorClass.isInstance(new Error('plain'))) problems.push(`${name}.isInstance(new Error()) is true`)
  if (errorClass.isInstance(new SpindleError('other', 'another class')))
    problems.push(`${name}.isInstance(new SpindleError()) is true: the marker must be the class's own`)
  return problems
}

/**
 * Registers a vitest test that checks `errorClass`'s marker and `isInstance` (see `errorClassProblems`); a failure
 * is a ConformanceError naming the rule `error.marker` and the fix.
 *
 * @example
 * describeErrorClass(WebToolError, () => new WebToolError('web_timeout', 'timed out'))
 */
export function describeErrorClass<E extends SpindleError>(errorClass: CheckedErrorClass<E>, make: () => E): void {
  describe(`${errorClass.name} (error class conformance)`, () => {
    it('has its own marker and a static isInstance that works across package copies', async () => {
      await rule(
        'error.marker',
        `give ${errorClass.name} a marker of its own — const marker = Symbol.for('<plugin>.error.<name>'); a field readonly [marker] = true; ` +
          `and static override isInstance(value: unknown): value is ${errorClass.name} { return hasErrorMarker(value, marker) } (hasErrorMarker from @spindle/core/plugin-kit)`,
        () => {
          const problems = errorClassProblems(errorClass, make())
          if (problems.length > 0) throw new Error(problems.join('; '))
        },
      )
    })
  })
}
