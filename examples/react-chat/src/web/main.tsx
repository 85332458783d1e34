// Entry: the chat id lives in the URL (?chat=…), so a reload reopens the same chat; its messages come from the
// server before useChat starts, and useChat's resume picks up an answer still being written.
import { createRoot } from 'react-dom/client'
import type { UIMessage } from 'ai'
import { ChatView } from './chat-view.tsx'

function chatIdFromUrl(): string {
  const url = new URL(window.location.href)
  let id = url.searchParams.get('chat')
  if (!id) {
    id = `chat-${crypto.randomUUID()}`
    url.searchParams.set('chat', id)
    window.history.replaceState(null, '', url)
  }
  return id
}

const chatId = chatIdFromUrl()
const response = await fetch(`/api/chats/${encodeURIComponent(chatId)}/messages`)
const messages = response.ok ? ((await response.json()) as UIMessage[]) : []
createRoot(document.getElementById('root')!).render(<ChatView chatId={chatId} initialMessages={messages} />)
