import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../shared/run-main.js';
import { safeText } from '../../shared/wire/free-text.js';
import { BELL_TEXT_MAX, type Bell, type BellWhy } from '../../shared/wire/overview.js';

/** The usage of the bell, as `program` (`node panoptes-agent.mjs bell`, `panoptes-bell`). */
export function bellUsage(program: string): string {
  return `usage: ${program} [--session NAME] [--why finished|attention|error] [--text TEXT]
         [--hook | --codex JSON] [--bell-file FILE | --config FILE] [--url URL]

Rings the bell of a session on this machine's Panoptes agent (POST /api/bell). Exits 0 when the
agent took it, 1 otherwise (never 2, which a Claude Code hook would read as "block"), within 5 s.

  --session NAME   the session (default: $PANOPTES_SESSION, else the project directory's name
                   and a short id of the session from --hook or --codex, else the current
                   directory's name)
  --why WHY        finished, attention or error (default: attention for a Claude Code
                   Notification, else finished)
  --text TEXT      what to show (default: the hook's message, or the last answer, else the why)
  --hook           read a Claude Code hook payload (JSON) on stdin
  --codex          Codex's notify payload (JSON) is the last argument

Where the agent is, and the bell token (the first of these that is given or there):
  --bell-file FILE {"url", "bell_token"} (hooks install writes ~/.config/panoptes/bell.json)
  --config FILE    the agent's config: its host, port and bell_token
  PANOPTES_BELL_TOKEN (or PANOPTES_AGENT_TOKEN) in the environment, at PANOPTES_AGENT_URL
                   (default http://127.0.0.1:8701)
  $XDG_CONFIG_HOME/panoptes/bell.json (default ~/.config/panoptes/bell.json)
  panoptes-agent.yaml beside this program (where enroll writes it)
  --url URL        the agent's address, over what any of these says
A token is never taken as an argument: ps shows arguments to every user.
`;
}

const WHYS: readonly BellWhy[] = ['finished', 'attention', 'error'];
const SESSION_MAX = 200;

/** What the command line asks for. */
export interface BellArgs {
  url?: string;
  session?: string;
  why?: string;
  text?: string;
  config?: string;
  bellFile?: string;
  /** Read a Claude Code hook payload on stdin. */
  hook: boolean;
  /** Codex's notify payload (the last argument), or null without --codex. */
  codex: string | null;
  help: boolean;
}

/** Parses the bell's flags; throws an Error (a UsageError for a secret) on anything wrong. */
export function parseBellArgs(argv: readonly string[]): BellArgs {
  for (const arg of argv) {
    if (arg === '--token' || arg.startsWith('--token=')) {
      throw new UsageError(
        '--token: pass the token in the environment as PANOPTES_BELL_TOKEN, or use --bell-file, not as an argument (ps shows arguments to every user)',
      );
    }
  }
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      url: { type: 'string' },
      session: { type: 'string' },
      why: { type: 'string' },
      text: { type: 'string' },
      config: { type: 'string' },
      'bell-file': { type: 'string' },
      hook: { type: 'boolean', default: false },
      codex: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  const out: BellArgs = {
    hook: values.hook === true,
    codex: null,
    help: values.help === true,
  };
  if (out.help) return out;
  for (const key of ['url', 'session', 'why', 'text', 'config'] as const) {
    const value = values[key];
    if (typeof value === 'string') out[key] = value;
  }
  if (typeof values['bell-file'] === 'string') out.bellFile = values['bell-file'];
  if (out.config !== undefined && out.bellFile !== undefined) {
    throw new Error('--config and --bell-file: one or the other');
  }
  if (values.codex === true) {
    if (out.hook) throw new Error('--hook and --codex: one or the other');
    const payload = positionals[0];
    if (positionals.length !== 1 || payload === undefined || argv.at(-1) !== payload) {
      throw new Error("--codex: Codex's notify JSON must be the one and last argument");
    }
    out.codex = payload;
  } else if (positionals.length > 0) {
    throw new Error(`unexpected argument ${JSON.stringify(clip(positionals[0] ?? '', 40))}`);
  }
  return out;
}

/** The part of a Claude Code hook payload the bell uses (every field is optional). */
interface HookPayload {
  session_id?: unknown;
  cwd?: unknown;
  hook_event_name?: unknown;
  message?: unknown;
  last_assistant_message?: unknown;
}

/** The part of Codex's notify payload the bell uses. */
interface CodexPayload {
  type?: unknown;
  'thread-id'?: unknown;
  cwd?: unknown;
  'last-assistant-message'?: unknown;
}

/** What a payload says about the session, before the flags and the environment. */
interface FromPayload {
  why: BellWhy;
  text: string | null;
  dir: string | null;
  id: string | null;
}

/**
 * The bell the flags, the environment and a payload (a Claude Code hook's on stdin with --hook;
 * Codex's with --codex) ask for. Flags win over the environment, which wins over the payload.
 * Null: a Codex notification that is not the end of a turn, which rings nothing.
 */
export function bellOf(
  args: BellArgs,
  env: NodeJS.ProcessEnv,
  cwd: string,
  hookPayload: unknown,
): Bell | null {
  let from: FromPayload;
  if (args.codex !== null) {
    const codex = objectOf(parseCodex(args.codex)) as CodexPayload;
    if (codex.type !== 'agent-turn-complete') return null;
    from = {
      why: 'finished',
      text: nonEmpty(codex['last-assistant-message']),
      dir: nonEmpty(codex.cwd),
      id: nonEmpty(codex['thread-id']),
    };
  } else {
    const hook = objectOf(hookPayload) as HookPayload;
    from = {
      why: hook.hook_event_name === 'Notification' ? 'attention' : 'finished',
      text: nonEmpty(hook.message) ?? nonEmpty(hook.last_assistant_message),
      dir: nonEmpty(hook.cwd),
      id: nonEmpty(hook.session_id),
    };
  }
  const why = args.why ?? from.why;
  if (!WHYS.includes(why as BellWhy)) {
    throw new Error(`--why must be finished, attention or error, not ${JSON.stringify(why)}`);
  }
  const text = args.text ?? from.text?.trim() ?? why;
  const session =
    args.session ?? nonEmpty(env.PANOPTES_SESSION) ?? sessionName(from.dir ?? cwd, from.id);
  return {
    session: clip(safeText(session), SESSION_MAX) || 'session',
    why: why as BellWhy,
    text: clip(safeText(text.replaceAll('\r\n', '\n'), true), BELL_TEXT_MAX),
  };
}

function parseCodex(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    throw new Error("--codex: the last argument is not Codex's notify JSON");
  }
}

function objectOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** "webshop 1a2b3c4d": the project directory's name and a short id of the session, if known. */
export function sessionName(dir: string, id: string | null): string {
  const name = basename(dir) || dir;
  return id === null ? name : `${name} ${shortId(id)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Eight characters that tell sessions apart: the first eight of an id, except for a UUID of
 * version 7 (Codex's thread ids), which starts with the time it was made, so that two sessions
 * begun in the same minute would share them: its last eight (random) instead.
 */
export function shortId(id: string): string {
  const uuid = UUID.exec(id);
  if (uuid?.[1] === '7') return id.replaceAll('-', '').slice(-8);
  return [...id].slice(0, 8).join('');
}

/** At most `max` characters (code points), the last one an ellipsis when cut. */
function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
