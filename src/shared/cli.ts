import { parseArgs } from 'node:util';

/** What both programs accept on the command line. */
export interface CliOptions {
  config?: string;
  host?: string;
  port?: number;
}

/** Parses `--config`, `--host` and `--port`; throws an Error with a usage message on anything else. */
export function parseCli(argv: readonly string[]): CliOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      config: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const out: CliOptions = {};
  if (values.config !== undefined) out.config = values.config;
  if (values.host !== undefined) out.host = values.host;
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new Error(`--port: must be an integer from 0 to 65535, got ${values.port}`);
    }
    out.port = port;
  }
  return out;
}
