// The crash test's workload, shared by the parent (to check the result) and the child (to run it): a seeded
// plan of tasks, the scripted model that follows it from the request alone, and tools with a side-effect ledger.
import { appendFileSync, readFileSync } from 'node:fs'
import { defineTool, jsonSchema, mockModel, type AgentSpec, type MockModel, type MockTurn, type ModelRequest } from '@spindle/core'

/** mulberry32: a small seeded PRNG, so that a failing seed reproduces exactly. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

export type CrashToolName = 'charge' | 'send_email' | 'lookup'

/** Non-idempotent tools must never run twice for one call; `lookup` is idempotent and may be re-run. */
export const nonIdempotentTools: readonly CrashToolName[] = ['charge', 'send_email']

export interface PlannedCall {
  id: string
  name: CrashToolName
  args: ({ amount: number } | { to: string } | { query: string }) & { ref: string }
}

export interface PlannedTurn {
  text: string
  calls: PlannedCall[]
  delayMs: number
  chunkSize: number
}

export interface CrashTask {
  index: number
  sessionId: string
  idempotencyKey: string
  input: string
  /** Tool-call turns, then one final answer (a turn without calls). */
  turns: PlannedTurn[]
}

export const agentName = 'crash-agent'

/** Two tasks per session, so that runs share a session log and its gate. */
export function crashTask(seed: number, index: number): CrashTask {
  const random = createRandom((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0)
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!
  const words = ['ledger', 'invoice', 'refund', 'receipt', 'account', 'balance', 'transfer', 'statement', 'customer', 'order']
  const sentence = (count: number) => Array.from({ length: count }, () => pick(words)).join(' ')
  const toolTurns = 1 + Math.floor(random() * 3)
  const turns: PlannedTurn[] = []
  for (let step = 0; step < toolTurns; step++) {
    const callCount = 1 + Math.floor(random() * 2)
    const calls: PlannedCall[] = []
    for (let call = 0; call < callCount; call++) {
      const name = pick<CrashToolName>(['charge', 'send_email', 'lookup'])
      const id = `t${index}s${step}c${call}`
      // Each call's arguments are unique (`ref`), so the kernel's doom-loop detection never stops a run.
      const args =
        name === 'charge'
          ? { amount: 1 + Math.floor(random() * 100), ref: id }
          : name === 'send_email'
            ? { to: `user${index}@example.com`, ref: id }
            : { query: sentence(2), ref: id }
      calls.push({ id, name, args })
    }
    turns.push({
      text: `Step ${step}: ${sentence(4 + Math.floor(random() * 6))}.`,
      calls,
      delayMs: 10 + Math.floor(random() * 40),
      chunkSize: 3 + Math.floor(random() * 6),
    })
  }
  turns.push({
    text: `Task #${index} done: ${sentence(6 + Math.floor(random() * 10))}.`,
    calls: [],
    delayMs: 10 + Math.floor(random() * 40),
    chunkSize: 3 + Math.floor(random() * 6),
  })
  return { index, sessionId: `session-${index >> 1}`, idempotencyKey: `task-${index}`, input: `Please handle task #${index}.`, turns }
}

/**
 * The scripted model: a pure function of the request (the task number in the last user message, the turn from
 * the assistant messages after it), so a restarted process picks up the script at the right turn.
 */
export function crashModel(seed: number): MockModel {
  return mockModel((request: ModelRequest): MockTurn => {
    const lastUser = request.messages.findLastIndex((message) => message.role === 'user')
    const userMessage = request.messages[lastUser]
    const content = typeof userMessage?.content === 'string' ? userMessage.content : JSON.stringify(userMessage?.content)
    const match = /task #(\d+)/.exec(content ?? '')
    if (!match) return { error: new Error(`crash model: no task in the last user message: ${content}`) }
    const task = crashTask(seed, Number(match[1]))
    const done = request.messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length
    const turn = task.turns[done]
    if (!turn) return { error: new Error(`crash model: task #${task.index} has ${task.turns.length} turns, turn ${done} was requested`) }
    return {
      text: turn.text,
      toolCalls: turn.calls.map((call) => ({ id: call.id, name: call.name, args: call.args })),
      delayMs: turn.delayMs,
      chunkSize: turn.chunkSize,
    }
  })
}

export interface LedgerLine {
  key: string
  tool: CrashToolName
  pid: number
}

export function readLedger(path: string): LedgerLine[] {
  let text = ''
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return []
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LedgerLine)
}

export interface CrashToolHooks {
  /** Called right after the side effect is in the ledger, before the tool returns (and its journal entry is written). */
  afterSideEffect?(tool: CrashToolName): void
}

/**
 * The tools record each side effect as one appended ledger line carrying the idempotency key, then sleep a
 * little, so that a kill often lands between the side effect and its journal write.
 */
export function crashAgent(seed: number, ledgerPath: string, hooks: CrashToolHooks = {}): AgentSpec {
  const record = async (tool: CrashToolName, key: string) => {
    appendFileSync(ledgerPath, `${JSON.stringify({ key, tool, pid: process.pid } satisfies LedgerLine)}\n`)
    hooks.afterSideEffect?.(tool)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  const charge = defineTool({
    name: 'charge',
    description: 'Charges the customer (not idempotent; no reconcile: an unknown outcome goes back to the model)',
    inputSchema: jsonSchema<{ amount: number }>({ type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] }),
    effect: 'external',
    execute: async ({ amount }, { idempotencyKey }) => {
      await record('charge', idempotencyKey)
      return { charged: amount }
    },
  })
  const sendEmail = defineTool({
    name: 'send_email',
    description: 'Sends an email (not idempotent; reconciled from the ledger after a crash)',
    inputSchema: jsonSchema<{ to: string }>({ type: 'object', properties: { to: { type: 'string' } }, required: ['to'] }),
    effect: 'external',
    execute: async ({ to }, { idempotencyKey }) => {
      await record('send_email', idempotencyKey)
      return { sent: to }
    },
    reconcile: ({ args, idempotencyKey }) =>
      readLedger(ledgerPath).some((line) => line.key === idempotencyKey)
        ? { action: 'result', result: { sent: args.to, reconciled: true } }
        : { action: 'rerun' },
  })
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks something up (idempotent: re-run after a crash)',
    inputSchema: jsonSchema<{ query: string }>({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }),
    idempotent: true,
    effect: 'read',
    execute: async ({ query }, { idempotencyKey }) => {
      await record('lookup', idempotencyKey)
      return { query, hits: query.length }
    },
  })
  return { name: agentName, instructions: 'Handle the task with your tools.', model: crashModel(seed), tools: { charge, send_email: sendEmail, lookup } }
}
