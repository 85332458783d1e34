// Entry of the web UI.
import { createRoot } from 'react-dom/client'
import { App } from './app'
import './styles.css'

createRoot(document.getElementById('root')!).render(<App />)
