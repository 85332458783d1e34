// The sandbox worker of @spindle/tools-code: runs one piece of untrusted JavaScript in a fresh
// QuickJS (wasm) runtime with memory, stack and time limits, then reports and exits.
// It lives in a worker thread so that nothing the guest does (a native CPU bomb, a wasm trap)
// can block or crash the host: the host terminates the thread on a hard deadline.
'use strict'
const { parentPort, workerData } = require('node:worker_threads')
const { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } = require('quickjs-emscripten')

const { code, memoryLimitBytes, maxStackBytes, timeLimitMs, maxOutputBytes, globalNames, wasmModule } = workerData
// QuickJS's JS_EVAL_FLAG_ASYNC (not named by quickjs-emscripten): a global script with top-level await,
// whose promise resolves to { value: <completion value> }, the value a plain script would give.
const evalGlobalAsync = 1 << 7
// The clock starts when the guest code starts, not while the sandbox is being set up.
let deadline = Infinity

// The guest-side prelude: console and granted functions, all formatting done inside the guest.
const prelude = `(function (emit, callHost, names) {
  const format = (value) => {
    if (typeof value === 'string') return value
    try {
      const json = JSON.stringify(value)
      return json === undefined ? String(value) : json
    } catch (error) {
      try { return String(value) } catch { return '[unprintable]' }
    }
  }
  const make = (level) => (...args) => { emit(level, args.map(format).join(' ')) }
  const console = { log: make('log'), info: make('info'), warn: make('warn'), error: make('error'), debug: make('debug') }
  Object.defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true })
  for (const name of names) {
    const grant = async (...args) => {
      const json = await callHost(name, JSON.stringify(args))
      return json === undefined ? undefined : JSON.parse(json)
    }
    Object.defineProperty(globalThis, name, { value: grant, writable: false, configurable: false, enumerable: false })
  }
  // Kept from before the guest runs: a guest cannot swap the prototype this compares against.
  const internalErrorPrototype = InternalError.prototype
  const isInternalError = (value) => value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === internalErrorPrototype
  return [(value) => JSON.stringify(value), isInternalError]
})`

const pendingCalls = new Map()
let nextCallId = 0
let wakeUp = undefined
// A reply that could not be handed to the guest (its memory ran out while copying it in): the run stops on it.
let replyFailure = undefined
parentPort.on('message', (message) => {
  if (message && message.type === 'host-result') {
    const pending = pendingCalls.get(message.id)
    if (pending) {
      pendingCalls.delete(message.id)
      try {
        pending(message)
      } catch (error) {
        replyFailure ??= error
      }
      if (wakeUp) wakeUp()
    }
  }
})

function report(message) {
  parentPort.postMessage(message)
}

const logs = []
let logBytes = 0
let logsTruncated = false

// The one signal that the guest ran out of memory: the allocator asked the bounded wasm memory to grow and was
// refused. Guest code cannot forge it (an error's name and message it can), and it holds however the failure
// then surfaces: a throw, a rejected promise nobody awaits, an error caught and swallowed, a null exception.
let memoryExhausted = false

/** Watches `memory.grow`: emscripten's heap resize makes 3 attempts (over-growing less each time) before malloc fails. */
function watchGrowth(memory) {
  const grow = memory.grow.bind(memory)
  let refusedInARow = 0
  memory.grow = (pages) => {
    try {
      const previousPages = grow(pages)
      refusedInARow = 0
      return previousPages
    } catch (error) {
      if (++refusedInARow >= 3) memoryExhausted = true
      throw error
    }
  }
}

/** QuickJS's parse error for `return` outside a function (the message is QuickJS's, pinned by the tests). */
function isTopLevelReturn(vm, errorHandle) {
  const problem = classify(vm, errorHandle)
  return problem.kind === 'error' && problem.detail.startsWith('SyntaxError: return not in a function')
}

/**
 * Settles a promise the guest returned: runs guest jobs, waits for granted host calls, stays inside the
 * deadline. A value that is not a promise is returned as it is.
 */
async function settle(vm, runtime, value) {
  for (;;) {
    const state = vm.getPromiseState(value)
    if (state.type === 'fulfilled') {
      if (state.notAPromise) return { ok: true, value }
      value.dispose()
      return { ok: true, value: state.value }
    }
    if (state.type === 'rejected') return { ok: false, problem: classify(vm, state.error) }
    // Jobs run here are promise callbacks: an allocation failure in one that nobody awaits still counts.
    const jobs = runtime.executePendingJobs()
    if (jobs.error) return { ok: false, problem: classify(vm, jobs.error) }
    if (memoryExhausted) return { ok: false, problem: { kind: 'memory' } }
    if (replyFailure) throw replyFailure
    if (Date.now() > deadline) return { ok: false, problem: { kind: 'timeout' } }
    if (jobs.value === 0) {
      if (pendingCalls.size === 0) return { ok: false, problem: { kind: 'error', detail: 'the returned promise never settles' } }
      await new Promise((resolve) => {
        const timer = setTimeout(done, Math.max(0, deadline - Date.now()) + 1)
        function done() {
          clearTimeout(timer)
          wakeUp = undefined
          resolve()
        }
        wakeUp = done
      })
    }
  }
}

/** The guest's `isInternalError` from the prelude (a handle), once it is set up. */
let isInternalError = undefined

/** Runs the guest's queued jobs to the end, within the deadline; returns the problem that stopped them, if any. */
function drainJobs(vm, runtime) {
  for (;;) {
    const jobs = runtime.executePendingJobs()
    if (jobs.error) return classify(vm, jobs.error)
    if (memoryExhausted) return { kind: 'memory' }
    if (jobs.value === 0) return undefined
    if (Date.now() > deadline) return { kind: 'timeout' }
  }
}

function classify(vm, errorHandle) {
  if (memoryExhausted) return { kind: 'memory' }
  let dumped
  try {
    dumped = vm.dump(errorHandle)
  } catch {
    dumped = { name: 'Error', message: 'the error could not be read' }
  }
  const name = dumped && typeof dumped === 'object' ? String(dumped.name ?? 'Error') : 'Error'
  const message = dumped && typeof dumped === 'object' ? String(dumped.message ?? '') : String(dumped)
  const stack = dumped && typeof dumped === 'object' && typeof dumped.stack === 'string' ? dumped.stack.trim().split('\n')[0] : undefined
  if (name === 'InternalError' && message === 'interrupted') return { kind: 'timeout' }
  // Failures the allocator never sees: QuickJS's cap on a string's length (2^30 - 1 characters; rope strings cost
  // no memory) and a single request too large to ask the wasm memory for (new ArrayBuffer(2 ** 31 - 1)). Only the
  // engine's own InternalError counts (a thrown object with that name and message does not).
  if ((message === 'string too long' || message === 'out of memory') && isEngineInternalError(vm, errorHandle)) return { kind: 'memory', detail: message }
  if (message === 'stack overflow' || name === 'RangeError' && /stack/i.test(message)) return { kind: 'stack' }
  return { kind: 'error', detail: `${name}${message ? `: ${message}` : ''}${stack ? ` (${stack.replace(/^at\s+/, 'at ')})` : ''}`.slice(0, 2000) }
}

function isEngineInternalError(vm, errorHandle) {
  if (!isInternalError) return false
  const checked = vm.callFunction(isInternalError, vm.undefined, errorHandle)
  if (checked.error) {
    checked.error.dispose()
    return false
  }
  const result = vm.dump(checked.value) === true
  checked.value.dispose()
  return result
}

async function main() {
  // QuickJS's own malloc limit under-counts in this wasm build (no malloc_usable_size), so the
  // hard cap is the wasm memory itself: a bounded WebAssembly.Memory makes malloc fail past it.
  const page = 64 * 1024
  const basePages = 256 // the module's initial 16 MiB (static data and C stack)
  const wasmMemory = new WebAssembly.Memory({ initial: basePages, maximum: basePages + Math.ceil(memoryLimitBytes / page) })
  watchGrowth(wasmMemory)
  const QuickJS = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, wasmModule ? { wasmMemory, wasmModule } : { wasmMemory }))
  const runtime = QuickJS.newRuntime()
  // No QuickJS malloc limit on top: it refuses big requests without touching the wasm memory, so a refusal
  // by it would leave no trace but the error's text. Every allocation failure is then a refused growth.
  runtime.setMaxStackSize(maxStackBytes)
  // Memory running out ends the run like the time limit does: code that catches the error is stopped too.
  runtime.setInterruptHandler(() => memoryExhausted || Date.now() > deadline)
  const vm = runtime.newContext()

  const emit = vm.newFunction('emit', (levelHandle, textHandle) => {
    if (logsTruncated) return
    const level = vm.getString(levelHandle)
    const text = vm.getString(textHandle)
    const line = level === 'log' ? text : `[${level}] ${text}`
    const size = Buffer.byteLength(line) + 1
    if (logBytes + size > maxOutputBytes) {
      logsTruncated = true
      const room = Math.max(0, maxOutputBytes - logBytes)
      if (room > 0) logs.push(Buffer.from(line).subarray(0, room).toString())
      logs.push(`[logs truncated at ${maxOutputBytes} bytes]`)
      return
    }
    logBytes += size
    logs.push(line)
  })
  const callHost = vm.newFunction('callHost', (nameHandle, argsHandle) => {
    const name = vm.getString(nameHandle)
    const argsJson = vm.getString(argsHandle)
    const deferred = vm.newPromise()
    const id = nextCallId++
    pendingCalls.set(id, (reply) => {
      if (!vm.alive) return
      if (reply.ok) {
        if (reply.json === undefined) deferred.resolve(vm.undefined)
        else {
          const value = vm.newString(reply.json)
          deferred.resolve(value)
          value.dispose()
        }
      } else {
        const error = vm.newError(String(reply.message))
        deferred.reject(error)
        error.dispose()
      }
      deferred.dispose()
    })
    report({ type: 'host-call', id, name, argsJson })
    return deferred.handle
  })
  const namesHandle = vm.unwrapResult(vm.evalCode(JSON.stringify(globalNames), 'names.json'))
  const preludeFn = vm.unwrapResult(vm.evalCode(prelude, 'spindle-prelude.js', { type: 'global' }))
  const helpers = vm.unwrapResult(vm.callFunction(preludeFn, vm.undefined, emit, callHost, namesHandle))
  const toJson = vm.getProp(helpers, 0)
  isInternalError = vm.getProp(helpers, 1)
  for (const handle of [namesHandle, preludeFn, emit, callHost, helpers]) handle.dispose()

  // Once the allocator refused memory, that is the outcome, whatever the code did next (caught it, left a
  // rejection unhandled, returned a value, or failed to turn it into JSON).
  const finish = (message) => report({ ...(memoryExhausted && message.kind !== 'memory' ? { type: 'done', ok: false, kind: 'memory' } : message), logs, logsTruncated })

  deadline = Date.now() + timeLimitMs
  report({ type: 'started' })
  // All code runs as an async script, whatever its text says (a test for the word "await" also matched comments
  // and strings): top-level await works and the last expression is the result. That evaluation reports only
  // syntax errors (a failure while running rejects its promise), so code refused only for a top-level
  // `return` runs instead as the body of an async function, never twice. The body opens on the code's first
  // line, so reported line numbers stay right.
  let evaluated = vm.evalCode(code, 'sandbox.js', evalGlobalAsync)
  let completion = true
  if (evaluated.error && isTopLevelReturn(vm, evaluated.error)) {
    evaluated.error.dispose()
    evaluated = vm.evalCode(`(async () => {${code}\n})()`, 'sandbox.js', { type: 'global' })
    completion = false
  }
  if (evaluated.error) return finish({ type: 'done', ok: false, ...classify(vm, evaluated.error) })
  let settled = await settle(vm, runtime, evaluated.value)
  if (settled.ok && completion) {
    const last = vm.getProp(settled.value, 'value')
    settled.value.dispose()
    // The last expression may itself be a promise that was not awaited.
    settled = await settle(vm, runtime, last)
  }
  if (!settled.ok) return finish({ type: 'done', ok: false, ...settled.problem })
  const value = settled.value
  // Promise callbacks still queued run too (as after a script in Node): one that runs out of memory is reported.
  const drained = drainJobs(vm, runtime)
  if (drained) return finish({ type: 'done', ok: false, ...drained })

  const jsonResult = vm.callFunction(toJson, vm.undefined, value)
  if (jsonResult.error) {
    const problem = classify(vm, jsonResult.error)
    if (problem.kind !== 'error') return finish({ type: 'done', ok: false, ...problem })
    return finish({ type: 'done', ok: false, kind: 'not-serializable', detail: problem.detail })
  }
  const json = vm.typeof(jsonResult.value) === 'string' ? vm.getString(jsonResult.value) : undefined
  if (json !== undefined && Buffer.byteLength(json) > maxOutputBytes) {
    return finish({ type: 'done', ok: false, kind: 'output', detail: `${Buffer.byteLength(json)} bytes` })
  }
  finish({ type: 'done', ok: true, json })
}

main().catch((error) => {
  // quickjs-emscripten throws on the host when it cannot copy a value out of an exhausted heap.
  if (memoryExhausted) return report({ type: 'done', ok: false, kind: 'memory', logs, logsTruncated })
  report({ type: 'done', ok: false, kind: 'crash', detail: String(error && error.stack ? error.stack : error), logs: [], logsTruncated: false })
})
