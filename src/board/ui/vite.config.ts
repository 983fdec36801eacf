import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Builds the board's browser UI into dist/ui, which src/board/http/ui-routes.ts serves at /. */
export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npx vite --config src/board/ui/vite.config.ts`: the UI with hot reload, /api (and the live
  // socket) proxied to a running board.
  server: {
    host: '127.0.0.1',
    proxy: {
      '/api': { target: process.env.PANOPTES_BOARD_URL ?? 'http://127.0.0.1:8700', ws: true },
    },
  },
  build: {
    outDir: fileURLToPath(new URL('../../../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The CSP allows nothing inline and no data: URLs: every asset is a file of its own.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: true,
    reportCompressedSize: false,
  },
});
