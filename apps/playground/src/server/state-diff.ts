// Diffs for the debugger: two JSON values (a run's state in two snapshots, two runtime states), and two
// conversations (a fork and its parent), entry by entry.
import type { JsonValue, ModelMessage, SessionEntry } from '@spindle/core'

/** One difference between two JSON values, at a path such as `usage.inputTokens` or `pending[0].approval`. */
export interface ValueChange {
  path: string
  kind: 'added' | 'removed' | 'changed'
  before?: JsonValue
  after?: JsonValue
}

/** The differences from `before` to `after`, path by path (objects by key, arrays by index), in document order. */
export function diffValues(before: JsonValue | undefined, after: JsonValue | undefined, path = ''): ValueChange[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return []
  if (before === undefined) return [{ path: path || '(root)', kind: 'added', after }]
  if (after === undefined) return [{ path: path || '(root)', kind: 'removed', before }]
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    return keys.flatMap((key) => diffValues(before[key], after[key], path ? `${path}.${key}` : key))
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length)
    return Array.from({ length }, (_, index) => diffValues(before[index], after[index], `${path}[${index}]`)).flat()
  }
  return [{ path: path || '(root)', kind: 'changed', before, after }]
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A conversation entry as the diff shows it: its role and a one-line text (tool calls and results included). */
export interface DiffEntry {
  seq: number
  role: string
  text: string
}

/** One row of a fork-vs-parent diff. */
export interface ConversationRow {
  /** `same`: equal in both; `edited`: both have an entry here, different; `parent` / `fork`: only one has it. */
  kind: 'same' | 'edited' | 'parent' | 'fork'
  parent?: DiffEntry
  fork?: DiffEntry
}

/** The two logs side by side, aligned by position (a fork copies its parent's entries in order, then goes its own way). */
export function diffConversations(parent: SessionEntry[], fork: SessionEntry[]): ConversationRow[] {
  const left = parent.map(describeEntry)
  const right = fork.map(describeEntry)
  const rows: ConversationRow[] = []
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const a = left[index]
    const b = right[index]
    if (a && b) rows.push({ kind: a.role === b.role && a.text === b.text ? 'same' : 'edited', parent: a, fork: b })
    else if (a) rows.push({ kind: 'parent', parent: a })
    else rows.push({ kind: 'fork', fork: b })
  }
  return rows
}

export function describeEntry(entry: SessionEntry): DiffEntry {
  if (entry.kind !== 'message') return { seq: entry.seq, role: 'compaction', text: 'compaction summary' }
  return { seq: entry.seq, role: entry.message.role, text: messageText(entry.message) }
}

/** A message in one line: its text, then its tool calls `name(args)` and results `→ name: result`. */
export function messageText(message: ModelMessage): string {
  if (message.role === 'system') return message.content
  if (message.role === 'user')
    return typeof message.content === 'string'
      ? message.content
      : message.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ')
  if (message.role === 'tool') return message.content.map((part) => `→ ${part.toolName}: ${JSON.stringify(part.result)}`).join(' ')
  return message.content
    .map((part) => (part.type === 'text' ? part.text : part.type === 'tool-call' ? `${part.toolName}(${JSON.stringify(part.args)})` : ''))
    .filter(Boolean)
    .join(' ')
}
