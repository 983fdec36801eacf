#!/usr/bin/env node
// Replaces tsc's dist/shared/typebox.js (three re-exports) with TypeBox bundled into that one
// module. Node 20 keeps some 30 KB per loaded ES module; TypeBox is ~680 of them, so the board
// at rest is ~20 MB smaller this way (docs/internals/decisions.md). Same exports, same code.
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
