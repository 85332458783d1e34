// Local runs only (`pnpm vitest run --config packages/stores/postgres/vitest.config.ts`); the root config drives CI.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: { conditions: ['@spindle/source'] },
  ssr: { resolve: { conditions: ['@spindle/source'] } },
  test: { root: import.meta.dirname, include: ['src/**/*.test.ts'], testTimeout: 20_000, hookTimeout: 30_000, name: '@spindle/store-postgres' },
})
