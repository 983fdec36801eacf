import { parseArgs } from 'node:util';
import { parseSelector } from '../../shared/selector.js';
import type { PersonView } from '../auth/local-people.js';
import { type BindingView, isRole } from '../auth/roles.js';
import { type BoardSettings, loadBoardConfig } from '../config/config.js';
import { directUsers } from './users-direct.js';
import type { UsersPort } from './users-port.js';
import { localAddress, remoteUsers } from './users-remote.js';

const USAGE = [
  'usage: users add NAME --role viewer|operator|admin [--selector SELECTOR] [--config DIR]',
  '       users list [--config DIR] | users remove NAME [--config DIR] | users link NAME [--config DIR]',
].join('\n');

/** Whether argv (after the program) asks for the `users` command rather than a board. */
export function isUsersCommand(argv: readonly string[]): boolean {
  return argv[0] === 'users';
}

/** The origin a link made on the store itself starts with: public_url, else the board's address. */
function linkOrigin(settings: BoardSettings): string {
  if (settings.publicUrl !== null) return new URL(settings.publicUrl).origin;
  const local = localAddress(settings);
  const scheme = settings.tls === null ? 'http' : 'https';
  return local !== null
    ? `${scheme}://${local.host}`
    : `${scheme}://${settings.host}:${settings.port}`;
}

/**
 * Where `users` makes its change: a SQLite board running on this machine is asked through its
 * API (it holds its file; one writer); otherwise the store itself is opened (PostgreSQL: every
 * board of the cluster sees the change at once; SQLite: the board reads it when it starts).
 */
async function openUsers(settings: BoardSettings): Promise<UsersPort> {
  if (settings.store.engine === 'sqlite') {
    const remote = await remoteUsers(settings);
    if (remote !== null) return remote;
  }
  return directUsers(settings, linkOrigin(settings));
}

function table(people: PersonView[]): string {
  if (people.length === 0) return 'no people yet (add one: users add NAME --role viewer)';
  const rows = people.map((p) => [
    p.name,
    p.source,
    p.bindings.map((b) => (b.selector === null ? b.role : `${b.role}(${b.selector})`)).join(','),
    [p.passkeys > 0 ? `${p.passkeys} passkey(s)` : '', p.password ? 'password' : '']
      .filter((s) => s !== '')
      .join('+') || 'no credential yet',
    p.signed_in_at ?? 'never signed in',
  ]);
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * `users add|list|remove|link`: people of the board without an identity provider. Prints on
 * stdout (the link once: it is the person's to open); on failure one line on stderr and exit
 * code 1 (2 for bad arguments).
 */
export async function runUsersCommand(
  program: string,
  argv: readonly string[],
  embedded: (() => BoardSettings) | null = null,
): Promise<void> {
  const fail = (code: number, message: string) => {
    process.stderr.write(`${program} users: ${message}\n${code === 2 ? `${USAGE}\n` : ''}`);
    process.exitCode = code;
  };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv.slice(1));
  } catch (error) {
    return fail(2, (error as Error).message);
  }
  let users: UsersPort | null = null;
  try {
    const settings =
      parsed.config !== undefined
        ? loadBoardConfig(parsed.config)
        : embedded !== null
          ? embedded()
          : (() => {
              throw new Error('--config DIR is required');
            })();
    users = await openUsers(settings);
    const { verb, name } = parsed;
    if (verb === 'list') {
      process.stdout.write(`${table(await users.list())}\n`);
    } else if (verb === 'remove') {
      await users.remove(name);
      process.stdout.write(`removed ${name}: their sessions and API tokens ended\n`);
    } else {
      const made = verb === 'add' ? await users.add(name, parsed.bindings) : await users.link(name);
      process.stdout.write(
        `${verb === 'add' ? `added ${name}. ` : ''}Send ${name} this one-time link (until ${made.link_expires_at}); it works once, to register a passkey or set a password:\n  ${made.link}\n`,
      );
    }
  } catch (error) {
    fail(1, error instanceof Error ? error.message : String(error));
  } finally {
    await users?.close().catch(() => undefined);
  }
}

type Parsed =
  | { verb: 'list'; name: ''; bindings: []; config: string | undefined }
  | { verb: 'add'; name: string; bindings: BindingView[]; config: string | undefined }
  | { verb: 'remove' | 'link'; name: string; bindings: []; config: string | undefined };

function parse(args: string[]): Parsed {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      role: { type: 'string' },
      selector: { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
  const [verb, name, ...extra] = positionals;
  const config = values.config;
  if (verb === 'list' && name === undefined) return { verb, name: '', bindings: [], config };
  if (name === undefined || extra.length > 0) throw new Error('one NAME, please');
  if (verb === 'remove' || verb === 'link') return { verb, name, bindings: [], config };
  if (verb !== 'add') throw new Error(`unknown: users ${verb ?? ''}`);
  if (!isRole(values.role)) throw new Error('--role must be viewer, operator or admin');
  const selector = values.selector ?? null;
  if (selector !== null) parseSelector(selector); // throws, naming the position
  return { verb, name, bindings: [{ role: values.role, selector }], config };
}
