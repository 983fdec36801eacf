#!/usr/bin/env node
// Replaces tsc's dist/shared/typebox.js (three re-exports) with TypeBox bundled into that one
// module. Node 20 keeps some 30 KB per loaded ES module and TypeBox is ~680 of them: ~20 MB
// while the board starts, 3–6 MB at rest (docs/internals/decisions.md). Same exports, same code.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/shared/typebox.ts'],
  outfile: 'dist/shared/typebox.js',
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
});
