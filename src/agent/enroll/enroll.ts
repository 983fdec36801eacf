import { mkdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { CliOptions } from '../../shared/cli.js';
import { loadAgentConfig } from '../config.js';
import { copyIntoPlaceSync, replaceFileSync } from '../io/safe-write.js';
import { ENROLLED_CONFIG_NAME } from '../ring/bell-target.js';
import { shellWord } from '../ring/hooks-command.js';
import { programIo } from '../ring/program.js';
import { V8_FLAGS } from '../v8-flags.js';
import { ENROLL_SECRETS, ENROLL_USAGE, type EnrollArgs, parseEnrollArgs } from './enroll-args.js';
import { enrolledConfig, readExisting, writePrivate } from './enroll-config.js';
import { defaultUnitDir, enableUnit, UNIT_NAME, unitText } from './systemd-unit.js';

/** node and the .mjs take the agent's V8 flags between them; the binary carries its own. */
export function withV8Flags(program: readonly string[]): string[] {
  const [node, file] = program;
  return node !== undefined && file !== undefined ? [node, ...V8_FLAGS, file] : [...program];
}

const say = (line: string) => process.stdout.write(`panoptes-agent: ${line}\n`);

/** A path for a hint: relative to here when it is below here, else absolute. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** How to run `self` (node and the .mjs, or the binary), for a hint. */
function selfName(self: readonly string[]): string {
  const [binary, file] = self;
  return file === undefined
    ? shellWord(binary ?? 'panoptes-agent')
    : `node ${shellWord(shown(file))}`;
}

/** The command that starts the agent again: --config only when it is not the file it finds alone. */
export function startCommand(self: readonly string[], config: string): string {
  const beside = join(dirname(self.at(-1) ?? ''), ENROLLED_CONFIG_NAME);
  const named = resolve(config) === beside ? '' : ` --config ${shellWord(shown(config))}`;
  return `${selfName(self)}${named}`;
}

/**
 * Copies the running agent file into `dir` (the fixed place --systemd installs to), unless it
 * runs from there already; answers the argv that runs the copy.
 */
function install(self: readonly string[], dir: string): string[] {
  const file = self.at(-1) as string;
  const into = join(dir, basename(file));
  mkdirSync(dir, { recursive: true, mode: process.getuid?.() === 0 ? 0o755 : 0o700 });
  if (resolve(file) !== into) copyIntoPlaceSync(file, into, statSync(file).mode & 0o777);
  return [...self.slice(0, -1), into];
}

/** What the enroll says plainly about how far this agent can trust its board's address. */
export function enrollWarnings(args: EnrollArgs): string[] {
  const lines: string[] = [];
  if (args.board.startsWith('http://')) {
    lines.push(
      `warning: ${args.board} is plain HTTP: reports, keys and actions cross the network unencrypted and can be read or changed on the way; put the board behind HTTPS (docs/operations.md)`,
    );
    if (!args.noUpdates && args.updateKey !== null) {
      lines.push(
        "updates from the board still run only when signed by the board's key pinned here (update_key), so no one on the network can give this agent a file to run",
      );
    }
  }
  if (!args.noUpdates && args.updateKey === null) {
    lines.push(
      "warning: no --update-key given (a board older than this agent's enroll): updates from the board are refused until update_key is set in the config (docs/agent.md)",
    );
  }
  return lines;
}

/**
 * `node panoptes-agent.mjs enroll …`: writes the agent's config for the name and key the board
 * made, checks it, and answers how to run the agent (null: --systemd installed it as a unit).
 */
export async function enroll(argv: readonly string[]): Promise<CliOptions | null> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${ENROLL_USAGE}\n`);
    return null;
  }
  const args = parseEnrollArgs(argv);
  // From here the config file holds them: a later edit of it is not overridden at a reload.
  for (const { env } of ENROLL_SECRETS) delete process.env[env];
  const self =
    args.installDir === null ? programIo().self : install(programIo().self, args.installDir);
  if (args.installDir !== null) say(`installed ${self.at(-1)}`);
  writePrivate(args.config, enrolledConfig(readExisting(args.config), args));
  // The file as the agent will read it: a mistake is found now, not at the next start.
  loadAgentConfig(args.config);
  say(`enrolled as ${args.name} for ${args.board}; config in ${args.config} (mode 0600)`);
  for (const line of enrollWarnings(args)) say(line);
  say(`bells from Claude Code or Codex here: ${selfName(self)} hooks install claude (or codex)`);
  if (args.installDir === null) {
    say('starting the agent here (Ctrl-C stops it; enroll with --systemd to run it as a service)');
    say(`to start it again: ${startCommand(self, args.config)}`);
    return { config: args.config };
  }
  const root = process.getuid?.() === 0;
  const user = !root && args.unitDir === null;
  const dir = args.unitDir ?? defaultUnitDir(root);
  const file = join(dir, UNIT_NAME);
  mkdirSync(dir, { recursive: true });
  replaceFileSync(
    file,
    unitText({
      program: withV8Flags(self),
      config: args.config,
      workDir: args.installDir,
      name: args.name,
      board: args.board,
      user,
    }),
    0o644,
  );
  say(`unit written to ${file}`);
  if (args.unitDir !== null) {
    say(`enable it with: systemctl daemon-reload && systemctl enable --now ${UNIT_NAME}`);
    return null;
  }
  await enableUnit(user);
  const scope = user ? '--user ' : '';
  say(`running as ${UNIT_NAME}: systemctl ${scope}status ${UNIT_NAME}`);
  if (user) say('to keep it running when you log out: loginctl enable-linger');
  return null;
}
