// Builds the web UI into dist/web. JSX goes through esbuild's automatic runtime (no React plugin needed).
import { defineConfig } from 'vite'

export default defineConfig({
  root: 'src/web',
  base: '/',
  esbuild: { jsx: 'automatic' },
  build: { outDir: '../../dist/web', emptyOutDir: true, target: 'es2022', sourcemap: false },
  logLevel: 'warn',
})
