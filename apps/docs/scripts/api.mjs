// Generates the API reference (Markdown into site/api) from the TSDoc of every public entry point with TypeDoc,
// and lists every public export without a TSDoc comment (TypeDoc's validation.notDocumented) in
// site/api/undocumented.json, which the docs test compares with known-undocumented.json.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Application, LogLevel } from 'typedoc'
import { publicEntryPoints, repoRoot } from './entry-points.mjs'
import { fixAnchors } from './fix-anchors.mjs'

const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(docsDir, 'site/api')

export async function generateApiReference() {
  const entries = publicEntryPoints()
  const undocumented = []
  const app = await Application.bootstrapWithPlugins({
    entryPoints: entries.map((entry) => entry.file),
    entryPointStrategy: 'resolve',
    tsconfig: join(docsDir, 'tsconfig.api.json'),
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out,
    docsRoot: join(docsDir, 'site'),
    readme: 'none',
    // One page per module, classes on their own pages: a few hundred pages (every interface, function and type on
    // its own page) would make every page carry a sidebar of hundreds of links and the build take minutes.
    membersWithOwnFile: ['Class'],
    excludePrivate: true,
    excludeInternal: true,
    excludeExternals: true,
    skipErrorChecking: true,
    githubPages: false,
    hideGenerator: true,
    sort: ['kind', 'alphabetical'],
    validation: { notExported: false, invalidLink: false, rewrittenLink: false, notDocumented: true, unusedMergeModuleWith: false },
    // Every export of every package must be documented: the top-level kinds a user imports.
    packagesRequiringDocumentation: [...new Set(entries.map((entry) => entry.packageName))],
    requiredToBeDocumented: ['Enum', 'Variable', 'Function', 'Class', 'Interface', 'TypeAlias'],
    logLevel: LogLevel.Warn,
    // The sidebar file the VitePress config reads.
    sidebar: { autoConfiguration: true, format: 'vitepress', pretty: true, collapsed: true },
  })
  // validation.notDocumented reports through validationWarning: collect those (the test turns them into a failure).
  const validationWarning = app.logger.validationWarning.bind(app.logger)
  app.logger.validationWarning = (message, ...rest) => {
    const text = String(message)
    const match = /^(.*) \((\w+)\), defined in (.*), does not have any documentation/.exec(text)
    // Only the exports themselves (`module.Name`), not members and signatures of an exported type.
    const isExport = match && !match[1].replace(/^@spindle\/[\w-]+(\/[\w-]+)?\./, '').includes('.')
    if (isExport) undocumented.push(`${match[1]} (${match[2]}) ${match[3].replace(/^@spindle\/[^/]+\//, '')}`)
    // A notDocumented warning in a wording this parser does not know is kept whole, so it fails the check instead
    // of vanishing (a TypeDoc upgrade that rewords it must not make every export look documented).
    else if (!match && text.includes('does not have any documentation')) undocumented.push(text)
    else if (!match) validationWarning(message, ...rest)
  }
  const project = await app.convert()
  if (!project) throw new Error('[spindle/docs] TypeDoc could not convert the packages (see the errors above)')
  // Name each module after its import specifier rather than its path.
  for (const child of project.children ?? []) {
    const entry = entries.find((candidate) => relative(repoRoot, candidate.file).replace(/\\/g, '/').replace(/\/index\.ts$/, '').endsWith(child.name.replace(/\/index$/, '')))
    if (entry) child.name = entry.specifier
  }
  app.validate(project)
  await app.generateOutputs(project)
  fixAnchors(out)
  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, 'undocumented.json'), `${JSON.stringify([...new Set(undocumented)].sort(), null, 2)}\n`)
  return { undocumented: [...new Set(undocumented)].sort() }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { undocumented } = await generateApiReference()
  console.log(`API reference written to ${relative(process.cwd(), out)}; ${undocumented.length} public exports lack TSDoc`)
}
