import { parseToolInput, SpindleError, type Tool, type ToolExecutionContext } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { codeTool, CodeToolError, codeToolSet, type CodeToolResult } from './index.js'

const context = {
  runId: 'r',
  sessionId: 's',
  step: 0,
  callId: 'c',
  toolName: 'run_code',
  idempotencyKey: 'r:0:c',
  signal: new AbortController().signal,
  runtime: undefined,
} as unknown as ToolExecutionContext

async function run(tool: Tool<{ code: string }, CodeToolResult>, code: string, signal?: AbortSignal): Promise<CodeToolResult> {
  const parsed = parseToolInput(tool, { code })
  if (!parsed.success) throw new Error(parsed.error)
  return tool.execute(parsed.value, signal ? { ...context, signal } : context)
}

async function failure(promise: Promise<unknown>): Promise<CodeToolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error, 'the code should have failed').toBeDefined()
  expect(SpindleError.isInstance(error)).toBe(true)
  expect((error as Error).message).toMatch(/^\[spindle\/tools-code\] /)
  return error as CodeToolError
}

const tool = codeTool({ timeLimitMs: 1000, memoryLimitBytes: 16 * 1024 * 1024 })

describe('codeTool: normal use', () => {
  it('returns the last expression and the console output', async () => {
    const output = await run(tool, 'console.log("hi", 1, { a: [1, 2] }); console.warn("careful"); const x = 6 * 7; ({ answer: x, list: [1, "two", null] })')
    expect(output).toEqual({ result: { answer: 42, list: [1, 'two', null] }, logs: ['hi 1 {"a":[1,2]}', '[warn] careful'] })
  })

  it('awaits a returned promise, and supports top-level await with return', async () => {
    expect((await run(tool, 'Promise.resolve(1).then((value) => value + 1)')).result).toBe(2)
    expect((await run(tool, 'const value = await Promise.resolve(5); return value * 2')).result).toBe(10)
    expect(await run(tool, '(async () => { throw new Error("async boom") })()').catch((error: Error) => error.message)).toContain('Error: async boom')
  })

  it('returns the last expression of code with top-level await too', async () => {
    const requested: string[] = []
    const rates = codeTool({
      timeLimitMs: 2000,
      globals: {
        getRate: async (currency: string) => {
          requested.push(currency)
          return currency === 'EUR' ? 1.5 : 1
        },
      },
    })
    expect((await run(rates, 'await getRate("EUR") * 2')).result).toBe(3)
    expect((await run(rates, 'const rate = await getRate("EUR")\nrate * 2 // doubled\n;;')).result).toBe(3)
    // A promise as the last expression is awaited, as without top-level await.
    expect((await run(rates, 'await getRate("EUR"); getRate("USD")')).result).toBe(1)
    expect((await run(rates, 'const rate = await getRate("EUR")')).result).toBeNull()
    expect((await run(rates, 'const rate = await getRate("EUR"); if (rate > 1) { "dear" } else { "cheap" }')).result).toBe('dear')
    // A SyntaxError thrown while running (not a top-level await the parser refused) is reported as it is: the
    // code, which had already called the host, is not run a second time as the body of an async function.
    requested.length = 0
    const error = await failure(run(rates, 'getRate("EUR"); (async () => { await 0 })(); JSON.parse("{")'))
    expect(error.message).toContain('SyntaxError')
    expect(requested).toEqual(['EUR'])
  })

  it('runs top-level return the same whether or not "await" appears in the code, a comment or a string', async () => {
    const requested: string[] = []
    const rates = codeTool({ timeLimitMs: 2000, globals: { getRate: async (currency: string) => void requested.push(currency) } })
    for (const [code, expected] of [
      ['return 7', 7],
      ['const x = 1\nreturn x + 1', 2],
      ['if (false) return 5\nreturn 6', 6],
      ['return', null],
      ['await 0; return 7', 7],
    ] as const) {
      for (const variant of [code, `// no await here\n${code}`, `"await";\n${code}`, `${code}\n// await`]) {
        expect((await run(rates, variant)).result, variant).toBe(expected)
      }
    }
    // The last expression counts the same with the word in a comment, and the code runs once.
    expect((await run(rates, '1 + 1')).result).toBe(2)
    expect((await run(rates, '1 + 1 // await')).result).toBe(2)
    requested.length = 0
    expect((await run(rates, 'getRate("EUR")\nreturn "sent"')).result).toBe('sent')
    expect(requested).toEqual(['EUR'])
    // Syntax errors name the line of the code, with or without top-level return.
    for (const broken of ['const a = 1\nconst b = ;', 'return 1\nconst b = ;', '// await\nconst a = 1\nconst b = ;']) {
      const error = await failure(run(tool, broken))
      expect(error.message).toContain('SyntaxError')
      expect(error.message).toContain(`sandbox.js:${broken.split('\n').length}:`)
    }
  })

  it('returns null for undefined and reports thrown errors with console output', async () => {
    expect((await run(tool, 'let a = 1')).result).toBeNull()
    const error = await failure(run(tool, 'console.log("before"); null.property'))
    expect(error.code).toBe('code_error')
    expect(error.message).toContain('TypeError')
    expect(error.message).toContain('before')
    const syntax = await failure(run(tool, 'this is not javascript'))
    expect(syntax.message).toContain('SyntaxError')
  })

  it('starts every call in a fresh context', async () => {
    await run(tool, 'globalThis.leftover = 1; Object.prototype.polluted = true')
    expect((await run(tool, '[typeof leftover, ({}).polluted === undefined]')).result).toEqual(['undefined', true])
  })

  it('calls only the explicitly granted host functions, with JSON in and out', async () => {
    const calls: unknown[][] = []
    const granted = codeTool({
      timeLimitMs: 2000,
      globals: {
        lookup: async (id: string) => {
          calls.push([id])
          return { id, price: 10 }
        },
        fail: () => {
          throw new Error('host says no')
        },
      },
    })
    expect(granted.effect).toBe('external')
    expect(granted.idempotent).toBe(false)
    const output = await run(granted, 'const item = await lookup("a-1"); return item.price * 2')
    expect(output.result).toBe(20)
    expect(calls).toEqual([['a-1']])
    const error = await failure(run(granted, 'await fail()'))
    expect(error.message).toContain('host says no')
    expect(() => codeTool({ globals: { console: () => 1 } })).toThrow(/cannot be granted/)
  })

  it('declares a read-only, idempotent tool without grants', () => {
    expect(tool).toMatchObject({ name: 'run_code', effect: 'read', idempotent: true, needsApproval: false })
    expect(Object.keys(codeToolSet())).toEqual(['run_code'])
    expect(Object.keys(codeToolSet({ name: 'js' }))).toEqual(['js'])
  })
})

describe('codeTool: hostile input', () => {
  it('stops an infinite loop with a clear timeout, and the host stays responsive meanwhile', async () => {
    const quick = codeTool({ timeLimitMs: 300 })
    let ticks = 0
    const ticker = setInterval(() => ticks++, 20)
    const started = Date.now()
    const error = await failure(run(quick, 'while (true) {}'))
    clearInterval(ticker)
    expect(error.code).toBe('code_timeout')
    expect(error.message).toContain('300 ms time limit')
    expect(Date.now() - started).toBeLessThan(4000)
    expect(ticks).toBeGreaterThan(5) // the event loop kept running while the guest spun
  })

  it('kills a native CPU bomb that never reaches an interrupt check', async () => {
    const quick = codeTool({ timeLimitMs: 200, memoryLimitBytes: 256 * 1024 * 1024 })
    let ticks = 0
    const ticker = setInterval(() => ticks++, 20)
    const error = await failure(run(quick, 'const a = new Array(5e6).fill(1); a.sort((x, y) => 0); a.join(",").length'))
    clearInterval(ticker)
    expect(['code_timeout', 'code_memory_limit']).toContain(error.code)
    expect(ticks).toBeGreaterThan(3)
  })

  it('stops an allocation bomb with a clear memory error', async () => {
    const small = codeTool({ timeLimitMs: 5000, memoryLimitBytes: 8 * 1024 * 1024 })
    for (const bomb of [
      'const parts = []; while (true) parts.push(new Uint8Array(65536))',
      'const parts = []; for (let i = 0; ; i++) parts.push(new Array(10000).fill(i))',
      'const parts = []; for (let i = 0; ; i++) parts.push({ i, text: String(i) })',
      'let s = "ab"; while (true) s = s + s',
    ]) {
      const error = await failure(run(small, bomb))
      expect(error.code).toBe('code_memory_limit')
      expect(error.message).toContain('ran out of memory')
    }
  })

  it('reports memory running out in async code, promise jobs and the result conversion as code_memory_limit', async () => {
    const small = codeTool({ timeLimitMs: 3000, memoryLimitBytes: 4 * 1024 * 1024 })
    const bomb = 'const parts = []; for (;;) parts.push(new Array(10000).fill(1))'
    for (const code of [
      `await (async () => { ${bomb} })()`,
      `const parts = []; let chain = Promise.resolve(); for (let i = 0; i < 1e6; i++) chain = chain.then(() => { parts.push(new Array(1000).fill(i)) }); chain`,
      `const parts = []; await Promise.all(Array.from({ length: 200 }, async (_, i) => { await 0; parts.push(new Array(100000).fill(i)) }))`,
      // A rejection nobody awaits, from a callback that ran out of memory.
      `Promise.resolve().then(() => { ${bomb} }); "finished"`,
      `Promise.resolve().then(() => { ${bomb} }); await 0; await 0; return "finished"`,
      // The error caught and swallowed: memory ran out all the same.
      `await Promise.resolve().then(() => { try { ${bomb} } catch {} }); "finished"`,
      `for (;;) { try { ${bomb} } catch {} }`,
      // While the result is turned into JSON.
      `({ toJSON() { ${bomb} } })`,
      'let text = "ab"; for (;;) { await 0; text = text + text }',
    ]) {
      const error = await failure(run(small, code))
      expect(error.code, code).toBe('code_memory_limit')
      expect(error.message).toMatch(/ran out of memory \(limit 4194304 bytes(, string too long)?\) and was stopped/)
    }
    // The next call gets a fresh sandbox.
    expect((await run(small, 'await Promise.resolve(20); return 21 * 2')).result).toBe(42)
  })

  it('reports a single allocation too large for the wasm memory to be asked for as code_memory_limit', async () => {
    // Refused by the engine before any growth is requested: the engine's own InternalError says so.
    const error = await failure(run(tool, 'new ArrayBuffer(2 ** 31 - 1)'))
    expect(error.code).toBe('code_memory_limit')
  })

  it('keeps a user error that only says "out of memory" a code_error', async () => {
    // Errors the code made up. (An InternalError it constructs itself counts as the engine's: faking its own memory
    // error gains the code nothing.)
    for (const code of [
      'throw new Error("out of memory")',
      'const error = new Error("out of memory"); error.name = "InternalError"; throw error',
      'await Promise.reject({ name: "InternalError", message: "out of memory" })',
      'await Promise.reject("out of memory")',
      'throw { name: "InternalError", message: "string too long" }',
    ]) {
      const error = await failure(run(tool, code))
      expect(error.code, code).toBe('code_error')
      expect(error.message).toMatch(/out of memory|string too long/)
    }
  })

  it('stops deep recursion with a clear stack error', async () => {
    const error = await failure(run(tool, 'function down(n) { return down(n + 1) + 1 } down(0)'))
    expect(error.code).toBe('code_stack_overflow')
  })

  it('has no host access: process, require, fetch, import, and the Function-constructor escape all fail', async () => {
    const probes = await run(
      tool,
      `[typeof process, typeof require, typeof fetch, typeof module, typeof Buffer, typeof setTimeout, typeof XMLHttpRequest, typeof WebAssembly, typeof std, typeof os]`,
    )
    expect(probes.result).toEqual(Array(10).fill('undefined'))
    for (const escape of [
      `globalThis.constructor.constructor('return process')()`,
      `(function () {}).constructor('return process')().env`,
      `this.constructor.constructor('return require')()('child_process')`,
      `Object.getPrototypeOf(async function () {}).constructor('return process')()`,
      `import('node:fs')`,
      `eval('process.exit(1)')`,
    ]) {
      const error = await failure(run(tool, escape))
      expect(error.code).toBe('code_error')
      expect(error.message).toMatch(/ReferenceError|not defined|could not load|SyntaxError|TypeError|Error/)
    }
  })

  it('cannot pollute host prototypes through results, logs or granted calls', async () => {
    const seen: unknown[] = []
    const granted = codeTool({ globals: { record: (value: unknown) => void seen.push(value) } })
    const output = await run(
      granted,
      `
      const evil = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted2": "yes"}}}')
      await record(evil)
      console.log(evil)
      return evil
    `,
    )
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(({} as Record<string, unknown>).polluted2).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
    expect(Object.getPrototypeOf(output.result)).toBe(Object.prototype)
    expect(Object.keys(seen[0] as object)).toContain('__proto__')
  })

  it('caps the result and the console output', async () => {
    const small = codeTool({ maxOutputBytes: 1000 })
    const error = await failure(run(small, '"x".repeat(5000)'))
    expect(error.code).toBe('code_output_limit')
    const chatty = await run(small, 'for (let i = 0; i < 10000; i++) console.log("line " + i); "done"')
    expect(chatty.result).toBe('done')
    expect(chatty.logs.join('\n').length).toBeLessThan(1200)
    expect(chatty.logs.at(-1)).toBe('[logs truncated at 1000 bytes]')
  })

  it('rejects results that are not JSON', async () => {
    expect((await failure(run(tool, 'const a = {}; a.self = a; a'))).code).toBe('code_not_serializable')
    expect((await failure(run(tool, '10n'))).code).toBe('code_not_serializable')
    expect((await failure(run(tool, 'new Promise(() => {})'))).message).toContain('never settles')
  })

  it('stops when the run is cancelled', async () => {
    const controller = new AbortController()
    const pending = run(codeTool({ timeLimitMs: 10_000 }), 'while (true) {}', controller.signal)
    setTimeout(() => controller.abort(), 100)
    expect((await failure(pending)).code).toBe('code_aborted')
  })

  it('never calls a granted function once the code was stopped (no effects after a cancel or a timeout)', async () => {
    for (const stop of ['cancel', 'timeout'] as const) {
      let calls = 0
      const controller = new AbortController()
      const sendEmail = async () => {
        calls++
        if (stop === 'cancel' && calls === 5) controller.abort()
      }
      // No call cap here: the run must be stopped by the cancel or the time limit.
      const effectful = codeTool({ timeLimitMs: stop === 'timeout' ? 300 : 10_000, maxHostCalls: 10_000_000, globals: { sendEmail } })
      // A steady stream of calls, not awaited: the worker goes on sending them until the host stops it.
      const pending = run(effectful, 'for (;;) { sendEmail(); for (let spin = 0; spin < 2000; spin++); }', controller.signal)
      const stopped = await failure(pending)
      expect(stopped.code).toBe(stop === 'cancel' ? 'code_aborted' : 'code_timeout')
      const atStop = calls
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(calls, `calls after the ${stop}`).toBe(atStop)
    }
  })

  it('stops a run at maxHostCalls: the call over the limit is not made', async () => {
    let calls = 0
    const record = async () => {
      calls++
    }
    const limited = codeTool({ maxHostCalls: 25, globals: { record } })
    // Not awaited and awaited alike.
    for (const code of ['for (;;) record()', 'for (let i = 0; i < 100; i++) await record()']) {
      calls = 0
      const error = await failure(run(limited, code))
      expect(error.code).toBe('code_host_call_limit')
      expect(error.message).toContain('more than 25 times')
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(calls).toBe(25)
    }
    calls = 0
    expect((await run(limited, 'for (let i = 0; i < 25; i++) await record(); "done"')).result).toBe('done')
    expect(calls).toBe(25)
    expect(() => codeTool({ maxHostCalls: 2.5 })).toThrow(/maxHostCalls must be a whole number/)
  })

  it('survives 50 sequential hostile calls and still runs normal code', { timeout: 120_000 }, async () => {
    const quick = codeTool({ timeLimitMs: 100, memoryLimitBytes: 4 * 1024 * 1024 })
    const hostile = [
      'while (true) {}',
      'const a = []; while (true) a.push(new Uint8Array(65536))',
      'function f() { return f() } f()',
      `globalThis.constructor.constructor('return process')()`,
      'throw new Error("x")',
    ]
    for (let index = 0; index < 50; index++) {
      const error = await failure(run(quick, hostile[index % hostile.length]))
      expect(['code_timeout', 'code_memory_limit', 'code_stack_overflow', 'code_error']).toContain(error.code)
    }
    expect((await run(quick, '1 + 1')).result).toBe(2)
  })
})
