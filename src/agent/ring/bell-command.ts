import { globalAgent as httpGlobalAgent } from 'node:http';
import { globalAgent } from 'node:https';
import { CallTimedOut, httpCall } from '../io/http-call.js';
import { bellOf, bellUsage, parseBellArgs } from './bell-args.js';
import { findBellTarget } from './bell-target.js';
import { type ProgramIo, programIo } from './program.js';

/** Time for the whole call; a hook must never hang the coding agent. */
const TIMEOUT_MS = 5000;
const STDIN_MAX_BYTES = 1024 * 1024;

/**
 * The bell (`node panoptes-agent.mjs bell`, `panoptes-bell`): rings a session's bell on the
 * agent. Returns 0 when the agent took it, 1 otherwise: never 2, which a Claude Code hook takes
 * as "block" (a Stop hook would keep Claude working), not even for a bad argument.
 */
export async function runBell(
  argv: readonly string[],
  names: { usage: string; prefix: string },
  io: ProgramIo = programIo(),
): Promise<number> {
  try {
    const args = parseBellArgs(argv);
    if (args.help) {
      io.out(bellUsage(names.usage));
      return 0;
    }
    const deadline = AbortSignal.timeout(TIMEOUT_MS);
    const payload = args.hook ? await io.readStdin(STDIN_MAX_BYTES, deadline) : null;
    const bell = bellOf(args, io.env, io.cwd, payload === null ? null : parseHook(payload));
    // A Codex notification other than the end of a turn: nothing to ring.
    if (bell === null) return 0;
    const target = findBellTarget(args, io.env, io.cwd, io.programDir);
    const response = await httpCall({
      url: `${target.url}/api/bell`,
      method: 'POST',
      agent: target.url.startsWith('https:') ? globalAgent : httpGlobalAgent,
      timeoutMs: TIMEOUT_MS,
      maxBytes: 64 * 1024,
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(bell),
      signal: deadline,
    });
    const text = response.text;
    if (response.status === 200) return 0;
    io.err(
      `${names.prefix}: the agent at ${target.url} answered ${response.status}: ${text.slice(0, 300).replace(/\s+/g, ' ')}`,
    );
    return 1;
  } catch (error) {
    io.err(`${names.prefix}: ${oneLine(error)}`);
    return 1;
  }
}

function parseHook(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('--hook: stdin is not a JSON hook payload');
  }
}

/** An error as one line: its message (a cause's code, for a failed connection). */
export function oneLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error).split('\n')[0] ?? '';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const why =
    error.name === 'TimeoutError' || error.name === 'AbortError' || error instanceof CallTimedOut
      ? 'no answer within 5 s'
      : // node:util's parseArgs adds a hint about '--' that does not apply here.
        error.message.replace(/\. To specify a positional argument starting with .*$/s, '');
  const extra = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return `${why}${extra}`.replace(/\s*\n\s*/g, '; ');
}
