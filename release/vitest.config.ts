// The release checks run on built packages (`pnpm release:check` builds first), one file at a time: they pack every
// published package, then publish them to a local registry and install them outside the workspace.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['./src/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
})
