import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../shared/run-main.js';
import { Value } from '../../shared/typebox.js';
import { HttpUrl, TOKEN_MIN_LENGTH } from '../../shared/wire/common.js';
import { loadAgentConfig } from '../config.js';
import { refuseLinkSync } from '../io/safe-write.js';
import { oneLine } from './bell-command.js';
import {
  agentUrl,
  type BellTarget,
  DEFAULT_AGENT_URL,
  defaultBellFile,
  ENROLLED_CONFIG_NAME,
  readBellFile,
  targetFromAgentConfig,
  writeBellFile,
} from './bell-target.js';
import { parseSettings, settingsText, withBellHooks, withoutBellHooks } from './claude-settings.js';
import { withNotify, withoutNotify } from './codex-toml.js';
import { homeOf, readIfThere, replaceUserFile } from './home-files.js';
import { type ProgramIo, programIo } from './program.js';

export const HOOKS_USAGE = `usage: node panoptes-agent.mjs hooks install|uninstall claude|codex
         [--config FILE] [--url URL] [--force]

Makes Claude Code or Codex ring this machine's Panoptes agent when a session wants you or is done.

  install claude    hooks in ~/.claude/settings.json: Notification rings "attention" with
                    Claude's message, Stop rings "finished"
  install codex     notify in ~/.codex/config.toml (top level): "finished" with the last answer
  uninstall …       takes out only what install put in

Every other setting and hook stays; a file that changes is copied to FILE.bak-TIME first;
installing twice leaves one of each. The hooks carry no token: they name
~/.config/panoptes/bell.json (yours, mode 0600), which install writes with the agent's address and
its bell_token, a token that opens POST /api/bell and nothing else.

  --config FILE     the agent's config, for its address and bell_token (default:
                    panoptes-agent.yaml beside this program, where enroll writes it)
  --url URL         the agent's address (default: from the config)
  --force           codex: replace a notify that runs another program
When the agent's config is another user's, give its bell_token in the environment as
PANOPTES_BELL_TOKEN (and --url, unless the agent is at ${DEFAULT_AGENT_URL}).
$CLAUDE_CONFIG_DIR and $CODEX_HOME are followed as Claude Code and Codex follow them.
`;

const say = (io: ProgramIo, line: string) => io.out(`panoptes-agent: ${line}\n`);

/** `hooks install|uninstall claude|codex`: 0 done, 1 refused or failed, 2 a usage error. */
export async function runHooks(
  argv: readonly string[],
  io: ProgramIo = programIo(),
): Promise<number> {
  try {
    const { values, positionals } = parseHooksArgs(argv);
    if (values.help === true) {
      io.out(HOOKS_USAGE);
      return 0;
    }
    const [action, tool, ...extra] = positionals;
    if (action !== 'install' && action !== 'uninstall') {
      throw new UsageError(
        action === undefined
          ? 'hooks: install or uninstall? (hooks --help)'
          : `hooks: install or uninstall, not ${JSON.stringify(action.slice(0, 40))} (hooks --help)`,
      );
    }
    if (tool !== 'claude' && tool !== 'codex') {
      throw new UsageError(
        tool === undefined
          ? `hooks ${action}: claude or codex? (hooks --help)`
          : `hooks ${action}: claude or codex, not ${JSON.stringify(tool.slice(0, 40))} (hooks --help)`,
      );
    }
    if (extra.length > 0)
      throw new UsageError(`hooks: unexpected argument ${JSON.stringify(extra[0])}`);
    if (values.force === true && (tool !== 'codex' || action !== 'install')) {
      throw new UsageError('--force: only with install codex');
    }
    if (action === 'uninstall' && (values.config !== undefined || values.url !== undefined)) {
      throw new UsageError('--config and --url: only with install');
    }
    if (values.url !== undefined && !Value.Check(HttpUrl, values.url)) {
      throw new UsageError(`--url: not an http(s) URL: ${values.url}`);
    }
    const bellFile = defaultBellFile(io.env);
    const toolFile = tool === 'claude' ? claudeFile(io) : codexFile(io);
    // A link where the tool's file is: refused before anything is written, the bell file too.
    refuseLinkSync(toolFile);
    if (action === 'install') {
      const target = installTarget(values, io, bellFile);
      const wrote = writeBellFile(bellFile, target);
      say(
        io,
        `${wrote ? 'wrote' : 'kept'} ${bellFile} (mode 0600): the agent at ${target.url} and its bell token (from ${target.from})`,
      );
    }
    if (tool === 'claude') claude(action, io, bellFile, toolFile);
    else codex(action, io, bellFile, values.force === true, toolFile);
    return 0;
  } catch (error) {
    io.err(`panoptes-agent: ${oneLine(error)}`);
    return error instanceof UsageError || isParseError(error) ? 2 : 1;
  }
}

function parseHooksArgs(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      config: { type: 'string' },
      url: { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
}

function isParseError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/** Where the hooks' bells go: the agent's config, else the token in the environment, else the bell file there. */
function installTarget(
  flags: { config?: string; url?: string },
  io: ProgramIo,
  bellFile: string,
): BellTarget {
  const withUrl = (t: BellTarget): BellTarget => ({
    ...t,
    url: (flags.url ?? t.url).replace(/\/+$/, ''),
  });
  const config =
    flags.config === undefined
      ? join(io.programDir, ENROLLED_CONFIG_NAME)
      : resolve(io.cwd, flags.config);
  const fromEnv = io.env.PANOPTES_BELL_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < TOKEN_MIN_LENGTH) {
      throw new UsageError(`PANOPTES_BELL_TOKEN: at least ${TOKEN_MIN_LENGTH} characters`);
    }
    return withUrl({
      url: flags.url ?? configUrl(config, flags.config !== undefined, io),
      token: fromEnv,
      from: 'PANOPTES_BELL_TOKEN',
    });
  }
  if (flags.config !== undefined || existsSync(config)) {
    return withUrl(targetFromAgentConfig(config, io.env, flags.url));
  }
  if (existsSync(bellFile)) return withUrl(readBellFile(bellFile));
  throw new Error(
    `no agent config at ${config}: pass --config FILE (the config enroll wrote), or the agent's bell_token as PANOPTES_BELL_TOKEN in the environment`,
  );
}

/**
 * The agent's address from its config: the one named (`named`: an error if it cannot be read),
 * else the one beside this program when this user can read it, else the default address.
 */
function configUrl(config: string, named: boolean, io: ProgramIo): string {
  if (named) return agentUrl(loadAgentConfig(config, {}, io.env));
  try {
    return existsSync(config) ? agentUrl(loadAgentConfig(config, {}, io.env)) : DEFAULT_AGENT_URL;
  } catch {
    // The agent's config is its user's alone: the other user names the address with --url.
    return DEFAULT_AGENT_URL;
  }
}

/** A word as POSIX sh reads it back: as it is when plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_/.,:@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A directory named by an environment variable when it is absolute, else one in the home directory. */
function toolDir(io: ProgramIo, variable: string, inHome: string): string {
  const named = io.env[variable];
  return named !== undefined && isAbsolute(named) ? named : join(homeOf(io.env), inHome);
}

function wrote(io: ProgramIo, file: string, what: string, backup: string | null): void {
  say(
    io,
    `${what} in ${file}${backup === null ? ' (a new file, mode 0600)' : ` (backup: ${backup})`}`,
  );
}

const claudeFile = (io: ProgramIo) =>
  join(toolDir(io, 'CLAUDE_CONFIG_DIR', '.claude'), 'settings.json');
const codexFile = (io: ProgramIo) => join(toolDir(io, 'CODEX_HOME', '.codex'), 'config.toml');

function claude(
  action: 'install' | 'uninstall',
  io: ProgramIo,
  bellFile: string,
  file: string,
): void {
  const text = readIfThere(file);
  const settings = parseSettings(text, file);
  if (action === 'install') {
    const command = [...io.self, 'bell', '--hook', '--bell-file', bellFile]
      .map(shellWord)
      .join(' ');
    const next = withBellHooks(settings, command);
    if (next === settings && text !== null) {
      say(io, `the Notification and Stop hooks are in ${file} already`);
      return;
    }
    wrote(io, file, 'Notification and Stop hooks', replaceUserFile(file, settingsText(next)));
    return;
  }
  const next = withoutBellHooks(settings);
  if (next === settings) {
    say(io, `no bell hooks in ${file}: nothing to take out`);
    return;
  }
  wrote(io, file, 'bell hooks taken out', replaceUserFile(file, settingsText(next)));
}

function codex(
  action: 'install' | 'uninstall',
  io: ProgramIo,
  bellFile: string,
  force: boolean,
  file: string,
): void {
  const text = readIfThere(file);
  const edit = <T>(f: () => T): T => {
    try {
      return f();
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message}; nothing was changed`);
    }
  };
  if (action === 'install') {
    const argv = [...io.self, 'bell', '--bell-file', bellFile, '--codex'];
    const next = edit(() => withNotify(text ?? '', argv, force));
    if (next.before.kind === 'other' && !force) {
      const shown = next.before.value.replace(/\s+/g, ' ').slice(0, 120);
      throw new Error(
        `${file} has notify = ${shown}, another program's: --force replaces it (after a backup), or add the bell to that program`,
      );
    }
    if (next.text === text) {
      say(io, `notify is in ${file} already`);
      return;
    }
    const what = next.before.kind === 'other' ? 'notify replaced (--force)' : 'notify';
    wrote(io, file, what, replaceUserFile(file, next.text));
    return;
  }
  if (text === null) {
    say(io, `no ${file}: nothing to take out`);
    return;
  }
  const next = edit(() => withoutNotify(text));
  if (!next.removed) {
    say(
      io,
      next.other
        ? `the notify in ${file} is another program's: left as it is`
        : `no notify in ${file}: nothing to take out`,
    );
    return;
  }
  wrote(io, file, 'notify taken out', replaceUserFile(file, next.text));
}
