// A tiny, safe arithmetic evaluator (no eval): + - * / % ^, parentheses and unary minus.
export function evaluateExpression(expression: string): number {
  const tokens = tokenize(expression)
  let position = 0
  const peek = () => tokens[position]
  const take = () => tokens[position++]

  const primary = (): number => {
    const token = take()
    if (token === undefined) throw new Error('the expression ends too early')
    if (token === '(') {
      const value = sum()
      if (take() !== ')') throw new Error('a closing parenthesis is missing')
      return value
    }
    if (token === '-') return -power()
    if (token === '+') return power()
    const value = Number(token)
    if (!Number.isFinite(value)) throw new Error(`unexpected "${token}"`)
    return value
  }
  const power = (): number => {
    const base = primary()
    if (peek() === '^') {
      take()
      return base ** power()
    }
    return base
  }
  const product = (): number => {
    let value = power()
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const operator = take()
      const right = power()
      value = operator === '*' ? value * right : operator === '/' ? value / right : value % right
    }
    return value
  }
  const sum = (): number => {
    let value = product()
    while (peek() === '+' || peek() === '-') value = take() === '+' ? value + product() : value - product()
    return value
  }

  const value = sum()
  if (position < tokens.length) throw new Error(`unexpected "${tokens[position]}"`)
  if (Number.isNaN(value)) throw new Error('the result is not a number (0 / 0, or 0 % 0?)')
  if (!Number.isFinite(value)) throw new Error('the result is not a finite number (a division by zero, or beyond ±1.8e308)')
  return withoutFloatNoise(value)
}

/**
 * `0.1 + 0.2` is 0.3, not 0.30000000000000004: a fraction keeps 15 significant digits (as many as a double always holds).
 * Whole numbers stay exact: any double of 2^53 or more is one, so rounding never multiplies (which overflowed).
 */
function withoutFloatNoise(value: number): number {
  if (Number.isInteger(value)) return value
  return Number(value.toPrecision(15))
}

function tokenize(expression: string): string[] {
  const tokens = expression
    .replace(/×/g, '*')
    .replace(/÷/g, '/')
    .match(/\d+(?:\.\d+)?|[-+*/%^()]|\S/g)
  if (!tokens?.length) throw new Error('the expression is empty')
  return tokens
}
