// Builds the web app into dist/web (the server serves it); in development Vite serves it and proxies /api to the
// server. JSX goes through esbuild's automatic runtime (no React plugin needed).
import { defineConfig } from 'vite'

export const apiPort = Number(process.env.API_PORT ?? 8787)

export default defineConfig({
  root: 'src/web',
  base: '/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    rollupOptions: {
      // Dependencies' "use client" directives and comment positions are harmless in a client bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE' && warning.code !== 'INVALID_ANNOTATION') warn(warning)
      },
    },
  },
  server: { proxy: { '/api': `http://127.0.0.1:${apiPort}` } },
  logLevel: 'warn',
})
