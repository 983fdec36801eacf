#!/usr/bin/env node
// Bundles the agent, with every dependency inside, into one ES module that runs on any
// Node >= 20 with nothing installed beside it: dist/agent-file/panoptes-agent.mjs. The board
// serves it at GET /agent/panoptes-agent.mjs (docs/agent.md, "Add a machine from the board").
import { build } from 'esbuild';

const OUT = 'dist/agent-file/panoptes-agent.mjs';

// createHttpApp gives Fastify its own schema compilers, so Fastify never loads Ajv's or
// fast-json-stringify's: left out of the file, they cost the resting agent nothing (some MB).
const SCHEMA_COMPILERS = /^@fastify\/(ajv-compiler|fast-json-stringify-compiler)$/;
const withoutSchemaCompilers = {
  name: 'without-schema-compilers',
  setup(b) {
    b.onResolve({ filter: SCHEMA_COMPILERS }, (args) => ({
      path: args.path,
      namespace: 'left-out',
    }));
    b.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
      contents: `module.exports = () => { throw new Error(${JSON.stringify(`${args.path} is not in the agent file`)}); };`,
      loader: 'js',
    }));
  },
};

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
  plugins: [withoutSchemaCompilers],
  banner: {
    // Dependencies written as CommonJS call require() for Node's own modules: give them one.
    js: [
      '// Panoptes agent, one file: run `node panoptes-agent.mjs --help`. Built by scripts/bundle-agent.mjs.',
      "import { createRequire as __panoptesRequire } from 'node:module';",
      'const require = __panoptesRequire(import.meta.url);',
    ].join('\n'),
  },
});
