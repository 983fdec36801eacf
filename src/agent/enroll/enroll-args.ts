import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Labels, labelsProblem, parseLabelArg, toLabels } from '../../shared/labels.js';
import { UsageError } from '../../shared/run-main.js';
import { Value } from '../../shared/typebox.js';
import { UPDATE_KEY_PATTERN } from '../../shared/wire/agent-update.js';
import { HttpUrl, NAME_PATTERN, TOKEN_MIN_LENGTH } from '../../shared/wire/common.js';

/** `panoptes-agent enroll …`, checked. */
export interface EnrollArgs {
  board: string;
  name: string;
  key: string;
  registrationToken: string;
  host: string | undefined;
  port: number | undefined;
  /** The agent's config file to write (absolute). */
  config: string;
  /** Seconds between reports, or undefined (the agent's default). */
  interval: number | undefined;
  /** PEM file of the CA that signed an https board's certificate (absolute), or null. */
  ca: string | null;
  /** Write and enable a systemd unit instead of running in the foreground. */
  systemd: boolean;
  /** Where the unit goes (absolute); null: the system's or the user's unit directory. */
  unitDir: string | null;
  /** --systemd: the fixed directory the agent file and its config are installed in; else null. */
  installDir: string | null;
  /** --no-updates: the agent takes no updates of its file from the board. */
  noUpdates: boolean;
  /** --update-key: the board's update-signing public key, pinned in the config (null: none). */
  updateKey: string | null;
  /** --label k=v (repeatable): the config's `labels:`, in place of any it had; null: none given. */
  labels: Labels | null;
}

/** The two secrets of an enrollment, and the variables that carry them. */
export const ENROLL_SECRETS = [
  { env: 'PANOPTES_BOARD_KEY', flag: 'key', what: "the board's key for this machine" },
  {
    env: 'PANOPTES_REGISTRATION_TOKEN',
    flag: 'registration-token',
    what: 'the registration token',
  },
] as const;

export const ENROLL_USAGE = `usage: PANOPTES_BOARD_KEY=KEY PANOPTES_REGISTRATION_TOKEN=TOKEN \\
       node panoptes-agent.mjs enroll --board URL --name NAME
         [--host HOST] [--port PORT] [--interval SECONDS] [--config FILE] [--ca FILE]
         [--systemd [--install-dir DIR] [--unit-dir DIR]] [--no-updates] [--update-key KEY]
         [--label KEY=VALUE]...

Writes the agent's config (FILE, default ./panoptes-agent.yaml, mode 0600; an existing file
keeps its token and services), then runs the agent, which reports to the board under NAME with
KEY. With --systemd it installs this file and the config (default FILE there) in DIR (default
/var/lib/panoptes-agent for root, else ~/.local/share/panoptes-agent), and writes and enables a
systemd unit that runs them there instead (see docs/agent.md). The key
and the token come from the environment, never from arguments (ps shows those to every user).
The agent takes updates of its own file from the board (update_from_board: true) unless
--no-updates; enrolling again keeps the choice an existing config made. It takes an update only
when the board's SHA256SUMS is signed by KEY (--update-key, which the board's command carries;
the config keeps it as update_key); without one, updates are refused. Each --label KEY=VALUE
(or KEY alone: an empty value) goes in the config's labels:, which the overview carries; given
again, they replace those an existing config had.`;

/**
 * Parses the arguments after `enroll` and the two secrets from `env`; throws an Error starting
 * with `--`, or a UsageError, on a bad one.
 */
export function parseEnrollArgs(
  argv: readonly string[],
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): EnrollArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      board: { type: 'string' },
      name: { type: 'string' },
      key: { type: 'string' },
      'registration-token': { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      config: { type: 'string' },
      ca: { type: 'string' },
      interval: { type: 'string' },
      systemd: { type: 'boolean' },
      'unit-dir': { type: 'string' },
      'install-dir': { type: 'string' },
      'no-updates': { type: 'boolean' },
      'update-key': { type: 'string' },
      label: { type: 'string', multiple: true },
    },
    strict: true,
    allowPositionals: false,
  });
  for (const { env: name, flag, what } of ENROLL_SECRETS) {
    if (values[flag] !== undefined) {
      throw new UsageError(
        `--${flag}: pass ${what} in the environment as ${name}, not as an argument (ps shows arguments to every user)`,
      );
    }
  }
  const [key, registrationToken] = ENROLL_SECRETS.map(({ env: name, what }) => {
    const value = env[name];
    if (value === undefined || value === '') {
      throw new UsageError(`${name} is required in the environment (${what})\n${ENROLL_USAGE}`);
    }
    if (value.length < TOKEN_MIN_LENGTH) {
      throw new UsageError(`${name}: at least ${TOKEN_MIN_LENGTH} characters`);
    }
    return value;
  }) as [string, string];
  const need = (flag: string, value: string | undefined): string => {
    if (value === undefined || value === '')
      throw new Error(`--${flag} is required\n${ENROLL_USAGE}`);
    return value;
  };
  const board = need('board', values.board).replace(/\/+$/, '');
  if (!Value.Check(HttpUrl, board)) throw new Error(`--board: not an http(s) URL: ${board}`);
  const name = need('name', values.name);
  if (!new RegExp(NAME_PATTERN).test(name)) {
    throw new Error(`--name: letters, digits, '.', '_' and '-' (at most 64), got ${name}`);
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new Error(`--port: must be an integer from 0 to 65535, got ${values.port}`);
    }
  }
  let interval: number | undefined;
  if (values.interval !== undefined) {
    interval = Number(values.interval);
    if (!Number.isFinite(interval) || interval <= 0 || interval > 86_400) {
      throw new Error(`--interval: seconds between reports, more than 0, got ${values.interval}`);
    }
  }
  const updateKey = values['update-key'] ?? null;
  if (updateKey !== null && !new RegExp(UPDATE_KEY_PATTERN).test(updateKey)) {
    throw new Error(
      `--update-key: the board's update key (43 characters of base64url, GET /agent/update-key), got ${updateKey.slice(0, 60)}`,
    );
  }
  const labels = values.label === undefined ? null : labelArgs(values.label);
  for (const flag of ['unit-dir', 'install-dir'] as const) {
    if (values[flag] !== undefined && values.systemd !== true) {
      throw new Error(`--${flag}: only with --systemd`);
    }
  }
  const installDir =
    values.systemd !== true
      ? null
      : values['install-dir'] === undefined
        ? systemdInstallDir(env)
        : resolve(cwd, values['install-dir']);
  return {
    board,
    name,
    key,
    registrationToken,
    host: values.host,
    port,
    interval,
    // With --systemd the config goes with the installed file, unless --config says where.
    config:
      values.config === undefined
        ? resolve(cwd, installDir ?? '.', 'panoptes-agent.yaml')
        : resolve(cwd, values.config),
    ca: values.ca === undefined ? null : resolve(cwd, values.ca),
    systemd: values.systemd === true,
    unitDir: values['unit-dir'] === undefined ? null : resolve(cwd, values['unit-dir']),
    installDir,
    noUpdates: values['no-updates'] === true,
    updateKey,
    labels,
  };
}

/** Every --label as one map; throws naming the first that breaks the label rule. */
function labelArgs(given: readonly string[]): Labels {
  const labels: Record<string, string> = {};
  for (const text of given) {
    try {
      const [key, value] = parseLabelArg(text);
      labels[key] = value;
    } catch (error) {
      throw new Error(`--label: ${(error as Error).message}`);
    }
  }
  const problem = labelsProblem(labels);
  if (problem !== null) throw new Error(`--label: ${problem}`);
  return toLabels(labels);
}

/**
 * Where `--systemd` installs the agent (its file, config and data): a fixed place, not the
 * directory the command was pasted in (often /tmp). root: /var/lib/panoptes-agent; another user:
 * $XDG_DATA_HOME/panoptes-agent (default ~/.local/share/panoptes-agent).
 */
export function systemdInstallDir(env: NodeJS.ProcessEnv, root = process.getuid?.() === 0): string {
  if (root) return '/var/lib/panoptes-agent';
  const data = env.XDG_DATA_HOME;
  if (data !== undefined && isAbsolute(data)) return join(data, 'panoptes-agent');
  const home = env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME : homedir();
  return join(home, '.local', 'share', 'panoptes-agent');
}
