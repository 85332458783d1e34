// The one kind of range the published manifests use for @spindle/* and zod: `^x.y.z` (npm's caret semantics).

/**
 * True when `version` (x.y.z) is inside `range`: a caret range (`^x.y.z`) or several joined by `||`;
 * false for any other range form.
 */
export function satisfiesCaret(version: string, range: string): boolean {
  return range.split('||').some((part) => satisfiesOneCaret(version, part.trim()))
}

function satisfiesOneCaret(version: string, range: string): boolean {
  const wanted = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range)
  const have = /^(\d+)\.(\d+)\.(\d+)$/.exec(version)
  if (!wanted || !have) return false
  const [a, b, c] = wanted.slice(1).map(Number) as [number, number, number]
  const [x, y, z] = have.slice(1).map(Number) as [number, number, number]
  if (a > 0) return x === a && (y > b || (y === b && z >= c))
  if (b > 0) return x === 0 && y === b && z >= c
  return x === 0 && y === 0 && z === c
}
