// The chat: useChat from @ai-sdk/react on the Spindle server. Text streams in, a tool call shows as a card, and a call
// that needs approval gets Approve / Deny buttons; the answer is sent back at once and the run resumes on the server.
import { useState, type FormEvent } from 'react'
import { useChat } from '@ai-sdk/react'
import { DefaultChatTransport, isToolUIPart, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai'

const transport = new DefaultChatTransport({ api: '/api/chat' })

/** The chat page for one chat id, starting from the messages the server kept. */
export function ChatView({ chatId, initialMessages }: { chatId: string; initialMessages: UIMessage[] }) {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: chatId,
    messages: initialMessages,
    transport,
    // Reconnects to an answer still being written (after a reload): the server replays it from the run's log.
    resume: true,
    // Once every approval of the step is answered, send them: the server resumes the suspended run.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  })
  const [draft, setDraft] = useState('')
  const busy = status === 'submitted' || status === 'streaming'

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!draft.trim() || busy) return
    void sendMessage({ text: draft })
    setDraft('')
  }

  return (
    <main>
      <header>
        <h1>Spindle · useChat</h1>
        <p>A durable agent on SQLite with a scripted offline model. Try “send an email to ada@example.com” or “tell me a story”, and reload mid-answer.</p>
      </header>
      {messages.map((message) => (
        <div key={message.id} className={`message ${message.role}`} data-testid={`message-${message.role}`}>
          {message.parts.map((part, index) => {
            if (part.type === 'text')
              return (
                <span key={index} data-testid="text">
                  {part.text}
                </span>
              )
            if (!isToolUIPart(part)) return null
            const input = part.input as { to?: string; subject?: string } | undefined
            return (
              <div key={part.toolCallId} className="tool" data-testid="tool-call" data-state={part.state}>
                <div>
                  <code>{part.type.slice('tool-'.length)}</code> to <b>{input?.to}</b>: “{input?.subject}” ·{' '}
                  <span className="state">{toolState(part.state)}</span>
                </div>
                {part.state === 'approval-requested' && (
                  <div>
                    <button className="approve" onClick={() => void addToolApprovalResponse({ id: part.approval.id, approved: true })}>
                      Approve
                    </button>
                    <button onClick={() => void addToolApprovalResponse({ id: part.approval.id, approved: false, reason: 'The user said no' })}>Deny</button>
                  </div>
                )}
              </div>
            )
          })}
        </div>
      ))}
      <p className="status" data-testid="status" data-status={status}>
        {busy ? 'The assistant is writing…' : ''}
        {error && <span className="error"> {error.message}</span>}
      </p>
      <form onSubmit={submit}>
        <div>
          <input aria-label="Message" value={draft} placeholder="Say something…" onChange={(event) => setDraft(event.target.value)} />
          <button type="submit" disabled={busy || !draft.trim()}>
            Send
          </button>
        </div>
      </form>
    </main>
  )
}

function toolState(state: string): string {
  switch (state) {
    case 'approval-requested':
      return 'waiting for your approval'
    case 'approval-responded':
      return 'answered, resuming…'
    case 'output-available':
      return 'sent'
    case 'output-denied':
      return 'denied'
    case 'output-error':
      return 'failed'
    default:
      return 'preparing…'
  }
}
