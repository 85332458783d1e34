// The conversation: persisted messages of earlier runs, and the live transcript of the selected run.
import { useEffect, useRef, useState } from 'react'
import { transcript, type TranscriptItem } from './derive'
import { duration, shortJson } from './format'
import type { AgentEvent, ModelMessage, SessionEntry } from './types'

export function Chat(props: {
  entries: SessionEntry[]
  runId?: string
  events: AgentEvent[]
  busy: boolean
  /** Messages waiting in the session's queue (no run yet), oldest first. */
  queued: string[]
  /** The longest message the server takes, counted after trimming. */
  maxChars: number
  /** Resolves true when the message was taken; the text is kept otherwise. */
  onSend(text: string): Promise<boolean>
}) {
  const [text, setText] = useState('')
  const [sending, setSending] = useState(false)
  const bottom = useRef<HTMLDivElement>(null)
  const live = transcript(props.events)
  const groups = groupEntries(props.entries)
  // The selected run's group shows its live transcript; with no run selected none does (a fork's copies have no runId).
  const liveIndex = props.runId ? groups.findIndex((group) => group.runId === props.runId) : -1
  const liveLength = live.reduce((sum, item) => sum + (item.kind === 'assistant' ? item.text.length : 1), 0)
  // A block body: newer Chromium returns a promise from scrollIntoView, which must not become the effect's cleanup.
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: 'end' })
  }, [liveLength, props.entries.length])

  const length = text.trim().length
  const tooLong = length > props.maxChars
  const send = async () => {
    const value = text.trim()
    if (!value || sending) return
    setSending(true)
    try {
      // Cleared only once the message was taken (and only if it was not edited meanwhile).
      if (await props.onSend(value)) setText((current) => (current.trim() === value ? '' : current))
    } finally {
      setSending(false)
    }
  }

  return (
    <main className="chat">
      <div className="messages" data-testid="messages">
        {!groups.length && !live.length && (
          <div className="welcome">
            <h2>Talk to an agent, then look inside the run.</h2>
            <p>Try one of these with the demo model:</p>
            <div className="suggestions">
              {['What is 12 * (3 + 4)?', 'Save a note: buy bread', 'List the files', 'Write hello.txt with "Hello Spindle"', 'Run [1, 2, 3].map(x => x * 2)', 'Tell me a long story'].map((example) => (
                <button key={example} onClick={() => setText(example)}>
                  {example}
                </button>
              ))}
            </div>
          </div>
        )}
        {groups.map((group, index) =>
          index === liveIndex ? <Items key={group.key} items={live} /> : <Items key={group.key} items={fromMessages(group.key, group.messages)} />,
        )}
        {liveIndex < 0 && <Items items={live} />}
        {props.queued.map((message, index) => (
          <div key={`q${index}`} dir="auto" className="bubble user queued" title="Queued: waits for the session's current run to end">
            {message}
          </div>
        ))}
        {props.queued.length > 0 && (
          <div className="status warn">
            Queued: the session is busy; {props.queued.length === 1 ? 'this message runs' : `these ${props.queued.length} messages run, in order,`} when the current run ends.
          </div>
        )}
        <div ref={bottom} />
      </div>
      <form
        className="composer"
        onSubmit={(event) => {
          event.preventDefault()
          void send()
        }}
      >
        <textarea
          id="composer"
          aria-label="Message"
          dir="auto"
          placeholder="Message the agent… (Enter to send, Shift+Enter for a new line)"
          value={text}
          rows={2}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) {
              event.preventDefault()
              void send()
            }
          }}
        />
        {length > props.maxChars * 0.9 && (
          <span className={`char-counter ${tooLong ? 'over' : ''}`} data-testid="char-counter" title="Characters in the message, and the most the server takes">
            {length.toLocaleString('en-US')} / {props.maxChars.toLocaleString('en-US')}
          </span>
        )}
        <button type="submit" disabled={!text.trim() || sending || tooLong}>
          {props.busy ? 'Queue' : 'Send'}
        </button>
      </form>
    </main>
  )
}

// `dir="auto"`: a message in Arabic or Hebrew reads right to left, its punctuation where it belongs.
function Items(props: { items: TranscriptItem[] }) {
  return (
    <>
      {props.items.map((item) => {
        if (item.kind === 'user') return <div key={item.key} dir="auto" className="bubble user">{item.text}</div>
        if (item.kind === 'assistant') return <div key={item.key} dir="auto" className="bubble assistant" data-testid="assistant">{item.text}</div>
        if (item.kind === 'status') return <div key={item.key} className={`status ${item.tone}`}>{item.text}</div>
        return (
          <details key={item.key} className={`tool-chip tool-${item.status.replace(' ', '-')}`} data-testid="tool-chip">
            <summary>
              <span className="tool-name">{item.toolName}</span> <span className="args">{shortJson(item.args, 60)}</span>
              <span className="tool-status">{item.status === 'cancelled' ? 'cancelled · not run' : item.status}{item.durationMs !== undefined ? ` · ${duration(item.durationMs)}` : ''}</span>
            </summary>
            <pre>{JSON.stringify(item.args, null, 2)}</pre>
            {item.result !== undefined && <pre className="result">{JSON.stringify(item.result, null, 2)}</pre>}
            {item.error && <pre className="result error">{item.error}</pre>}
          </details>
        )
      })}
    </>
  )
}

interface EntryGroup {
  key: string
  runId?: string
  messages: ModelMessage[]
}

function groupEntries(entries: SessionEntry[]): EntryGroup[] {
  const groups: EntryGroup[] = []
  for (const entry of entries) {
    if (entry.kind !== 'message') continue
    const last = groups.at(-1)
    // Entries without a run (a fork's copies) form one group too, so a tool result joins its call.
    if (last && last.runId === entry.runId) last.messages.push(entry.message)
    else groups.push({ key: `g${entry.seq}`, runId: entry.runId, messages: [entry.message] })
  }
  return groups
}

function fromMessages(key: string, messages: ModelMessage[]): TranscriptItem[] {
  const items: TranscriptItem[] = []
  messages.forEach((message, index) => {
    const id = `${key}-${index}`
    if (message.role === 'user') items.push({ kind: 'user', key: id, text: typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ') })
    if (message.role === 'assistant') {
      const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
      if (text) items.push({ kind: 'assistant', key: id, step: 0, text })
      for (const part of message.content) {
        if (part.type === 'tool-call') items.push({ kind: 'tool', key: `${id}-${part.toolCallId}`, callId: part.toolCallId, toolName: part.toolName, args: part.args, status: 'called' })
      }
    }
    if (message.role === 'tool') {
      for (const part of message.content) {
        const index = items.findIndex((item) => item.kind === 'tool' && item.callId === part.toolCallId)
        if (index >= 0) items[index] = { ...(items[index] as Extract<TranscriptItem, { kind: 'tool' }>), status: part.isError ? (neverRan(part.result) ? 'not run' : 'error') : 'done', result: part.result }
      }
    }
  })
  return items
}

/**
 * A result that says the call never ran: the kernel's for the calls of a run that ended first, and a fork's for the
 * calls its snapshot left awaiting a decision (both "Not executed: …").
 */
function neverRan(result: unknown): boolean {
  const error = (result as { error?: unknown } | null)?.error
  return typeof error === 'string' && error.startsWith('Not executed:')
}
