import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../../shared/config/config-error.js';
import { Value } from '../../shared/typebox.js';
import { HttpUrl, TOKEN_MIN_LENGTH } from '../../shared/wire/common.js';
import { type AgentSettings, loadAgentConfig } from '../config.js';
import { chmodNoFollowSync, refuseLinkSync } from '../io/safe-write.js';
import { configHome, privateDirs, readIfThere, replaceUserFile } from './home-files.js';

/** Where the bell goes, with which token, and where that was found (for messages). */
export interface BellTarget {
  url: string;
  token: string;
  from: string;
}

export const DEFAULT_AGENT_URL = 'http://127.0.0.1:8701';

/** The file enroll writes the agent's config to by default, beside the agent's own file. */
export const ENROLLED_CONFIG_NAME = 'panoptes-agent.yaml';

/** The user's bell file: `$XDG_CONFIG_HOME/panoptes/bell.json` (default `~/.config/…`). */
export function defaultBellFile(env: NodeJS.ProcessEnv): string {
  return join(configHome(env), 'panoptes', 'bell.json');
}

/**
 * The agent's address as seen from its own machine: its host and port, 127.0.0.1 (or ::1) for a
 * wildcard host; with tls, `location` when set (a name its certificate holds).
 */
export function agentUrl(settings: AgentSettings): string {
  if (settings.tls !== null && settings.location !== null) {
    return settings.location.replace(/\/+$/, '');
  }
  if (settings.port === 0) {
    throw new Error(
      `${settings.source}: port is 0 (any free port), so the agent's address is not known; pass --url`,
    );
  }
  const wildcard = { '0.0.0.0': '127.0.0.1', '::': '::1' } as Record<string, string>;
  const host = wildcard[settings.host] ?? settings.host;
  const shown = host.includes(':') ? `[${host}]` : host;
  return `${settings.tls === null ? 'http' : 'https'}://${shown}:${settings.port}`;
}

/** The agent's address (unless `url` is given) and bell_token from its config file. */
export function targetFromAgentConfig(
  file: string,
  env: NodeJS.ProcessEnv,
  url?: string,
): BellTarget {
  let settings: AgentSettings;
  try {
    settings = loadAgentConfig(file, {}, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (error.problems.some((p) => /\((EACCES|EPERM)\)/.test(p.problem))) {
      throw new Error(
        `cannot read ${file} (the agent's config is its user's alone): run this as that user, or pass the agent's bell_token as PANOPTES_BELL_TOKEN in the environment with --url`,
      );
    }
    throw new Error(
      `${file}: ${error.problems.map((p) => `${p.field || '(file)'}: ${p.problem}`).join('; ')}`,
    );
  }
  if (settings.bellToken === null) {
    throw new Error(
      `${file} has no bell_token: enroll again (it adds one), or add one (at least ${TOKEN_MIN_LENGTH} characters; the agent takes it without a restart)`,
    );
  }
  return { url: url ?? agentUrl(settings), token: settings.bellToken, from: file };
}

/** A bell file: `{"url": "http://…", "bell_token": "…"}`. */
export function readBellFile(file: string): BellTarget {
  const text = readIfThere(file);
  if (text === null) throw new Error(`${file} is not there (hooks install writes it)`);
  let value: { url?: unknown; bell_token?: unknown };
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    throw new Error(`${file} is not JSON`);
  }
  const { url, bell_token } = value ?? {};
  if (typeof url !== 'string' || !Value.Check(HttpUrl, url)) {
    throw new Error(`${file}: "url" is not an http(s) URL`);
  }
  if (typeof bell_token !== 'string' || bell_token.length < TOKEN_MIN_LENGTH) {
    throw new Error(
      `${file}: "bell_token" is not a token of at least ${TOKEN_MIN_LENGTH} characters`,
    );
  }
  return { url: url.replace(/\/+$/, ''), token: bell_token, from: file };
}

/** Writes a bell file, 0600 (its directory 0700 when made); false when it already said this. */
export function writeBellFile(file: string, target: { url: string; token: string }): boolean {
  const text = `${JSON.stringify({ url: target.url, bell_token: target.token }, null, 2)}\n`;
  // Before reading it: a link there is refused, not read through and then chmod'ed through.
  refuseLinkSync(file);
  const same = readIfThere(file) === text;
  if (!same) {
    privateDirs(dirname(file));
    // No backup: it would keep a token that was replaced.
    replaceUserFile(file, text, { backup: false });
  }
  // 0600 also when it was more open before.
  chmodNoFollowSync(file, 0o600);
  return !same;
}

/** Where the bell's flags say the agent is, or a bell file or config named by a flag. */
export interface TargetFlags {
  url?: string;
  config?: string;
  bellFile?: string;
}

/**
 * Finds the agent and the bell token, the first of: --bell-file; --config (the agent's config);
 * PANOPTES_BELL_TOKEN or PANOPTES_AGENT_TOKEN in the environment (at PANOPTES_AGENT_URL); the
 * user's bell file; the enrolled config beside the program. --url wins over the address found.
 */
export function findBellTarget(
  flags: TargetFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
  programDir: string,
): BellTarget {
  const found = ((): BellTarget => {
    if (flags.bellFile !== undefined) return readBellFile(resolve(cwd, flags.bellFile));
    if (flags.config !== undefined) {
      return targetFromAgentConfig(resolve(cwd, flags.config), env, flags.url);
    }
    const token = env.PANOPTES_BELL_TOKEN || env.PANOPTES_AGENT_TOKEN;
    if (token) {
      return { url: env.PANOPTES_AGENT_URL || DEFAULT_AGENT_URL, token, from: 'the environment' };
    }
    const bellFile = defaultBellFile(env);
    if (existsSync(bellFile)) return readBellFile(bellFile);
    const beside = join(programDir, ENROLLED_CONFIG_NAME);
    if (existsSync(beside)) return targetFromAgentConfig(beside, env, flags.url);
    throw new Error(
      `no bell token: pass --bell-file or --config, or set PANOPTES_BELL_TOKEN (or PANOPTES_AGENT_TOKEN); \`hooks install\` writes ${bellFile}`,
    );
  })();
  return { ...found, url: (flags.url ?? found.url).replace(/\/+$/, '') };
}
