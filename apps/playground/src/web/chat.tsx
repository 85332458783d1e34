// The conversation: persisted messages of earlier runs, and the live transcript of the selected run.
import { type ReactNode, useEffect, useRef, useState } from 'react'
import { runOutcome, transcript, type TranscriptItem } from './derive'
import { duration, shortJson } from './format'
import type { AgentEvent, ModelMessage, RunSummary, SessionEntry } from './types'

export function Chat(props: {
  entries: SessionEntry[]
  /** The session's runs: an earlier run that did not end with an answer says how it ended. */
  runs: RunSummary[]
  runId?: string
  /** The selected run's status, once its record is loaded. */
  runStatus?: RunSummary['status']
  events: AgentEvent[]
  busy: boolean
  /** Messages waiting in the session's queue (no run yet), oldest first. */
  queued: Array<{ ticket: string; text: string }>
  /** Takes a queued message back (it never runs). */
  onWithdraw(ticket: string): void
  /** The longest message the server takes, counted after trimming. */
  maxChars: number
  /** Resolves true when the message was taken; the text is kept otherwise. */
  onSend(text: string): Promise<boolean>
  /** Shown above the conversation (a fork's origin, with its comparison). */
  banner?: ReactNode
}) {
  const [text, setText] = useState('')
  const [sending, setSending] = useState(false)
  const bottom = useRef<HTMLDivElement>(null)
  const list = useRef<HTMLDivElement>(null)
  // Follows the end of the conversation only while the reader is there: scrolled up to read, they stay where they are.
  // Measured against the height the list had before it grew (not from scroll events, which come a frame late).
  const seenHeight = useRef(0)
  const follow = (always: boolean) => {
    const element = list.current
    if (!element) return
    if (always || seenHeight.current - element.scrollTop - element.clientHeight < 48) bottom.current?.scrollIntoView({ block: 'end' })
    seenHeight.current = element.scrollHeight
  }
  // An interrupted run (killed, or its server stopped) logs no end: the conversation says what it waits for.
  const interrupted = props.runStatus === 'interrupted' && props.events.length > 0
  const live = interrupted ? [...transcript(props.events), runOutcome({ status: 'interrupted' }, 'interrupted')!] : transcript(props.events)
  const groups = groupEntries(props.entries)
  // The selected run's group shows its live transcript; with no run selected none does (a fork's copies have no runId).
  const liveIndex = props.runId ? groups.findIndex((group) => group.runId === props.runId) : -1
  const liveLength = live.reduce((sum, item) => sum + (item.kind === 'assistant' ? item.text.length : 1), 0)
  // A block body: newer Chromium returns a promise from scrollIntoView, which must not become the effect's cleanup.
  useEffect(() => {
    follow(false)
  }, [liveLength, props.entries.length, props.queued.length])
  // Another run or session shown: its end, whatever the reader did before.
  useEffect(() => {
    follow(true)
  }, [props.runId])

  const length = text.trim().length
  const tooLong = length > props.maxChars
  const send = async () => {
    const value = text.trim()
    if (!value || sending) return
    // Sending brings the reader back to the end, where the message and its answer show.
    follow(true)
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
      {props.banner}
      <div className="messages" data-testid="messages" ref={list}>
        {!groups.length && !live.length && (
          <div className="welcome">
            <h2>Talk to an agent, then look inside the run.</h2>
            <p>Try one of these with the demo model:</p>
            <div className="suggestions">
              {[
                'What is 12 * (3 + 4)?',
                'Save a note: buy bread',
                'List the files',
                'Write hello.txt with "Hello Spindle"',
                'Run [1, 2, 3].map(x => x * 2)',
                'Tell me a long story',
              ].map((example) => (
                <button key={example} onClick={() => setText(example)}>
                  {example}
                </button>
              ))}
            </div>
          </div>
        )}
        {groups.map((group, index) =>
          index === liveIndex ? (
            <Items key={group.key} items={live} />
          ) : (
            <Items key={group.key} items={withOutcome(group, fromMessages(group.key, group.messages), props.runs)} />
          ),
        )}
        {liveIndex < 0 && <Items items={live} />}
        {props.queued.map((message) => (
          <div key={message.ticket} className="queued-message">
            <div id={`queued-${message.ticket}`} dir="auto" className="bubble user queued" title="Queued: waits for the session's current run to end">
              {message.text}
            </div>
            {/* Named by the message it takes back (aria-describedby), not by a label holding its text. */}
            <button
              type="button"
              className="withdraw"
              aria-describedby={`queued-${message.ticket}`}
              title="Take this message back: it will not run"
              onClick={() => props.onWithdraw(message.ticket)}
            >
              Withdraw
            </button>
          </div>
        ))}
        {props.queued.length > 0 && (
          <div className="status warn">
            Queued: the session is busy; {props.queued.length === 1 ? 'this message runs' : `these ${props.queued.length} messages run, in order,`}{' '}
            {queuedUntil(props.runStatus)}.
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
        if (item.kind === 'user')
          return (
            <div key={item.key} dir="auto" className="bubble user">
              {item.text}
            </div>
          )
        if (item.kind === 'assistant')
          return (
            <div key={item.key} dir="auto" className="bubble assistant" data-testid="assistant">
              {item.text}
            </div>
          )
        if (item.kind === 'status')
          return (
            <div key={item.key} className={`status ${item.tone}`}>
              {item.text}
            </div>
          )
        return (
          <details key={item.key} className={`tool-chip tool-${item.status.replace(' ', '-')}`} data-testid="tool-chip">
            <summary>
              <span className="tool-name">{item.toolName}</span> <span className="args">{shortJson(item.args, 60)}</span>
              {/* A denied call never ran: no duration. */}
              <span className="tool-status">
                {item.status === 'cancelled' ? 'cancelled · not run' : item.status}
                {item.durationMs !== undefined && item.status !== 'denied' ? ` · ${duration(item.durationMs)}` : ''}
              </span>
            </summary>
            <div className="kv">Arguments</div>
            <pre>{JSON.stringify(item.args, null, 2)}</pre>
            {item.result !== undefined && (
              <>
                <div className="kv">Result</div>
                <pre className="result">{JSON.stringify(item.result, null, 2)}</pre>
              </>
            )}
            {item.error && (
              <>
                <div className="kv">{item.status === 'denied' ? 'Denied' : 'Error'}</div>
                <pre className="result error">{item.error}</pre>
              </>
            )}
          </details>
        )
      })}
    </>
  )
}

/** An earlier run's messages, and how it ended when that was not with an answer (cancelled, failed, interrupted…). */
function withOutcome(group: EntryGroup, items: TranscriptItem[], runs: RunSummary[]): TranscriptItem[] {
  const run = group.runId === undefined ? undefined : runs.find((candidate) => candidate.id === group.runId)
  const outcome = run && runOutcome(run, `${group.key}-end`)
  return outcome ? [...items, outcome] : items
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
    if (message.role === 'user')
      items.push({
        kind: 'user',
        key: id,
        text: typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' '),
      })
    if (message.role === 'assistant') {
      const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
      if (text) items.push({ kind: 'assistant', key: id, step: 0, text })
      for (const part of message.content) {
        if (part.type === 'tool-call')
          items.push({ kind: 'tool', key: `${id}-${part.toolCallId}`, callId: part.toolCallId, toolName: part.toolName, args: part.args, status: 'called' })
      }
    }
    if (message.role === 'tool') {
      for (const part of message.content) {
        const index = items.findIndex((item) => item.kind === 'tool' && item.callId === part.toolCallId)
        if (index >= 0)
          items[index] = {
            ...(items[index] as Extract<TranscriptItem, { kind: 'tool' }>),
            status: part.isError ? (neverRan(part.result) ? 'not run' : wasDenied(part.result) ? 'denied' : 'error') : 'done',
            result: part.result,
          }
      }
    }
  })
  return items
}

/** The result the kernel gives the model for a call the user denied ("The user denied this call…"). */
function wasDenied(result: unknown): boolean {
  const error = (result as { error?: unknown } | null)?.error
  return typeof error === 'string' && error.startsWith('The user denied this call')
}

/**
 * A result that says the call never ran: the kernel's for the calls of a run that ended first, and a fork's for the
 * calls its snapshot left awaiting a decision (both "Not executed: …").
 */
function neverRan(result: unknown): boolean {
  const error = (result as { error?: unknown } | null)?.error
  return typeof error === 'string' && error.startsWith('Not executed:')
}

/** What the queued messages wait for: the run ahead of them ending, a decision on its calls, or its resume. */
function queuedUntil(status: RunSummary['status'] | undefined): string {
  if (status === 'suspended') return 'once the current run’s pending approval is decided'
  if (status === 'interrupted') return 'once the interrupted run is resumed or cancelled'
  return 'when the current run ends'
}
