// A plugin: a named setup function over Extensions, with an optional dispose.
import type { Extensions } from './extensions.js'

/** A plugin: a name, a `setup(extensions)` run by `extensions.use()`, and an optional `dispose()` run in reverse order by `extensions.dispose()`. */
export interface Plugin {
  readonly name: string
  setup(extensions: Extensions): void | Promise<void>
  dispose?(): void | Promise<void>
}

/**
 * @example
 * export const myStores = definePlugin({ name: 'my-stores', setup(ext) { ext.setStores(createMyStores()) } })
 */
export function definePlugin<P extends Plugin>(plugin: P): P {
  return plugin
}
