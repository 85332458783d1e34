// The version check for the plugin interfaces users often write inline (context adapters, compaction strategies,
// observers): no `specificationVersion` means v1; any other value than 'v1' is a plugin for another core.
import { ConfigurationError } from '../errors/errors.js'

/** Throws a ConfigurationError when `plugin.specificationVersion` is set to anything but `'v1'`. */
export function assertSpecificationVersion(kind: string, name: string | undefined, plugin: { readonly specificationVersion?: unknown }): void {
  const version = plugin.specificationVersion
  if (version === undefined || version === 'v1') return
  const named = name === undefined ? kind : `${kind} "${name}"`
  throw new ConfigurationError(
    `[spindle/core] ${named} implements specificationVersion ${JSON.stringify(version)}, but this @spindle/core supports "v1". ` +
      'Install a version of the plugin built for this core, or upgrade @spindle/core.',
    { details: { kind, name, specificationVersion: version } },
  )
}
