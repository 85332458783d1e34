// A plugin: a named setup function over Extensions, with an optional dispose.
import type { Extensions } from './extensions.js'

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
