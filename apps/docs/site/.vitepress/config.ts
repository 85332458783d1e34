// VitePress configuration of the Spindle documentation site. The API reference under /api is generated from TSDoc
// by scripts/api.mjs (TypeDoc), the benchmark plots under /plots by scripts/bench-plots.mjs; both run before a build.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig, type DefaultTheme } from 'vitepress'

const apiSidebarFile = join(import.meta.dirname, '../api/typedoc-sidebar.json')
const apiSidebar: DefaultTheme.SidebarItem[] = existsSync(apiSidebarFile) ? JSON.parse(readFileSync(apiSidebarFile, 'utf8')) : []

const guideSidebar: DefaultTheme.SidebarItem[] = [
  {
    text: 'Start',
    items: [
      { text: 'Install', link: '/start/install' },
      { text: 'Your first agent in five minutes', link: '/start/first-agent' },
      { text: 'Playground tour', link: '/start/playground' },
    ],
  },
  {
    text: 'Concepts',
    items: [
      { text: 'The loop', link: '/concepts/loop' },
      { text: 'Events: stream() and subscribe()', link: '/concepts/events' },
      { text: 'Sessions, runs and the gate', link: '/concepts/sessions-and-runs' },
      { text: 'Durability', link: '/concepts/durability' },
      { text: 'Context, compaction and memory', link: '/concepts/context' },
      { text: 'RuntimeStore', link: '/concepts/runtime-store' },
      { text: 'Policy and limits', link: '/concepts/policy' },
      { text: 'Redaction and secrets', link: '/concepts/redaction' },
    ],
  },
  {
    text: 'Guides',
    items: [
      { text: 'Providers', link: '/guides/providers' },
      { text: 'SQLite', link: '/guides/sqlite' },
      { text: 'PostgreSQL and workers', link: '/guides/postgres' },
      { text: 'Tools: web, fs, code, MCP', link: '/guides/tools' },
      { text: 'Approvals (human in the loop)', link: '/guides/approvals' },
      { text: 'Multi-agent', link: '/guides/multi-agent' },
      { text: 'OpenTelemetry', link: '/guides/opentelemetry' },
      { text: 'Testing an agent', link: '/guides/testing' },
      { text: 'Writing a plugin', link: '/guides/plugins' },
      { text: 'Deploying', link: '/guides/deploying' },
    ],
  },
  {
    text: 'More',
    items: [
      { text: 'Coming from another framework', link: '/migrate/from-other-frameworks' },
      { text: 'Benchmarks', link: '/benchmarks' },
    ],
  },
]

export default defineConfig({
  title: 'Spindle',
  description: 'A streaming-first, durable agent runtime kernel for TypeScript',
  lang: 'en',
  // A broken link fails the build; the docs test also checks every anchor.
  ignoreDeadLinks: false,
  lastUpdated: false,
  // Everything is served from the built files: no font or analytics requests.
  head: [],
  themeConfig: {
    nav: [
      { text: 'Start', link: '/start/install' },
      { text: 'Concepts', link: '/concepts/loop' },
      { text: 'Guides', link: '/guides/providers' },
      { text: 'API', link: '/api/' },
      { text: 'Benchmarks', link: '/benchmarks' },
    ],
    sidebar: {
      '/api/': [{ text: 'API reference', link: '/api/', items: apiSidebar }],
      '/': guideSidebar,
    },
    search: { provider: 'local' },
    outline: [2, 3],
  },
})
