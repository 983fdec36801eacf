import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { BELL_TEXT_MAX, type Bell, type BellWhy } from '../shared/wire/overview.js';

export const BELL_USAGE = `usage: panoptes-bell [--url URL] [--session NAME] [--why finished|attention|error]
                     [--text TEXT] [--hook]

Rings the bell of a session on a Panoptes agent (POST /api/bell).

  --url URL      the agent (default: $PANOPTES_AGENT_URL, else http://127.0.0.1:8701)
  --session NAME the session (default: $PANOPTES_SESSION, else from the hook payload,
                 else the current directory's name)
  --why WHY      finished, attention or error (default: from the hook event, else finished)
  --text TEXT    what to show (default: the hook's message, else the why)
  --hook         read a Claude Code hook payload (JSON) on stdin
  --token TOKEN  the agent token; prefer $PANOPTES_AGENT_TOKEN (a flag shows in ps)
`;

const WHYS: readonly BellWhy[] = ['finished', 'attention', 'error'];
export const DEFAULT_AGENT_URL = 'http://127.0.0.1:8701';
const SESSION_MAX = 200;

/** What the command line asks for. */
export interface BellArgs {
  url?: string;
  token?: string;
  session?: string;
  why?: string;
  text?: string;
  hook: boolean;
  help: boolean;
}

/** Parses the flags of panoptes-bell; throws an Error with a message on anything unknown. */
export function parseBellArgs(argv: readonly string[]): BellArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      session: { type: 'string' },
      why: { type: 'string' },
      text: { type: 'string' },
      hook: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const out: BellArgs = { hook: values.hook === true, help: values.help === true };
  for (const key of ['url', 'token', 'session', 'why', 'text'] as const) {
    const value = values[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

/** The part of a Claude Code hook payload the bell uses (every field is optional). */
interface HookPayload {
  session_id?: unknown;
  cwd?: unknown;
  hook_event_name?: unknown;
  message?: unknown;
}

/** Where to send which bell, and with which token. */
export interface BellRequest {
  url: string;
  token: string;
  bell: Bell;
}

/**
 * Decides the bell from the flags, the environment and (with --hook) the hook payload. Flags win
 * over the environment, which wins over the payload.
 */
export function bellRequest(
  args: BellArgs,
  env: NodeJS.ProcessEnv,
  cwd: string,
  payload: unknown,
): BellRequest {
  const hook = (payload !== null && typeof payload === 'object' ? payload : {}) as HookPayload;
  const token = args.token ?? env.PANOPTES_AGENT_TOKEN;
  if (token === undefined || token === '') {
    throw new Error('no agent token: set PANOPTES_AGENT_TOKEN (or pass --token)');
  }
  const why = args.why ?? whyOfEvent(hook.hook_event_name);
  if (!WHYS.includes(why as BellWhy)) {
    throw new Error(`--why must be finished, attention or error, not ${JSON.stringify(why)}`);
  }
  const text =
    args.text ?? (typeof hook.message === 'string' && hook.message !== '' ? hook.message : why);
  const url = (args.url ?? env.PANOPTES_AGENT_URL ?? DEFAULT_AGENT_URL).replace(/\/+$/, '');
  return {
    url,
    token,
    bell: {
      session: [...(args.session ?? env.PANOPTES_SESSION ?? sessionOf(hook, cwd))]
        .slice(0, SESSION_MAX)
        .join(''),
      why: why as BellWhy,
      text: [...text].slice(0, BELL_TEXT_MAX).join(''),
    },
  };
}

function whyOfEvent(event: unknown): string {
  if (event === 'Notification') return 'attention';
  return 'finished';
}

/** "project 1a2b3c4d": the directory's name and the start of the session id, when known. */
function sessionOf(hook: HookPayload, cwd: string): string {
  const dir = typeof hook.cwd === 'string' && hook.cwd !== '' ? hook.cwd : cwd;
  const name = basename(dir) || dir;
  const id = typeof hook.session_id === 'string' ? hook.session_id.slice(0, 8) : '';
  return id === '' ? name : `${name} ${id}`;
}
