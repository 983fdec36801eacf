#!/usr/bin/env node
// Bundles the agent, with every dependency inside, into one ES module that runs on any
// Node >= 20 with nothing installed beside it: dist/agent-file/panoptes-agent.mjs. The board
// serves it at GET /agent/panoptes-agent.mjs (docs/agent.md, "Add a machine from the board").
import { build } from 'esbuild';

const OUT = 'dist/agent-file/panoptes-agent.mjs';

await build({
  entryPoints: ['src/agent/cli.ts'],
  outfile: OUT,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Minified (the file crosses the network at each enrolment), names kept for stack traces.
  minify: true,
  keepNames: true,
  legalComments: 'none',
  // The agent tells the board which of its files it runs from (updates from the board); a
  // clone's dist has no such constant and says nothing.
  define: { __PANOPTES_AGENT_FILE__: JSON.stringify('panoptes-agent.mjs') },
  logLevel: 'warning',
  banner: {
    // Dependencies written as CommonJS call require() for Node's own modules: give them one.
    js: [
      '// Panoptes agent, one file: run `node panoptes-agent.mjs --help`. Built by scripts/bundle-agent.mjs.',
      "import { createRequire as __panoptesRequire } from 'node:module';",
      'const require = __panoptesRequire(import.meta.url);',
    ].join('\n'),
  },
});
