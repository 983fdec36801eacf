import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * A private PostgreSQL server for a test or a bench run: `initdb` into a temporary directory (as
 * the `postgres` user when running as root, which PostgreSQL refuses), started with `pg_ctl` on a
 * free port on 127.0.0.1 with `fsync=off`, and stopped (its directory removed) at the end. It
 * never touches a system-wide cluster. Password authentication over TCP (scram-sha-256), so the
 * password in the store URL is a real secret the tests can look for.
 */
export interface PgServer {
  /** Port on 127.0.0.1. */
  port: number;
  /** The superuser's password (the user is `panoptes`). */
  password: string;
  /** A URL for a database on this server (created by `createDatabase`). */
  url(database: string): string;
  /** Creates a database and answers its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server as a crash would (`-m immediate`), or cleanly (`fast`). */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Starts it again on the same port, with the same data. */
  start(): void;
  /** Ends every backend connection of `user` other than the caller's (a cut-off board). */
  terminateConnections(database: string): Promise<number>;
  /** Stops the server for good and removes its directory. */
  destroy(): void;
}

const USER = 'panoptes';

/** The directory with initdb and pg_ctl (Debian's postgresql-15, or what pg_config names). */
export function postgresBinDir(): string | null {
  for (const v of ['17', '16', '15']) {
    const dir = `/usr/lib/postgresql/${v}/bin`;
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = found.status === 0 ? found.stdout.trim() : '';
  return dir !== '' && existsSync(join(dir, 'initdb')) ? dir : null;
}

/** A free TCP port on 127.0.0.1 (taken and given back). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const running = new Set<PgServer>();
process.once('exit', () => {
  for (const server of running) server.destroy();
});

/** Starts a private server (initdb takes ~2 s here). Throws if PostgreSQL is not installed. */
export async function startPostgres(
  options: {
    /** PEM files of the server's certificate and key: TLS on (clients may still connect without). */
    tls?: { cert: string; key: string };
  } = {},
): Promise<PgServer> {
  const bin = postgresBinDir();
  if (bin === null) {
    throw new Error(
      'PostgreSQL is not installed (apt-get install -y postgresql-15; .ci/run does this)',
    );
  }
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'panoptes-pg-'));
  const data = join(dir, 'data');
  const password = `pg-${Math.random().toString(36).slice(2)}-secret`;
  writeFileSync(join(dir, 'pw'), password);
  chmodSync(dir, 0o700);
  if (root) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(dir, Number(ids), Number(gid));
    chownSync(join(dir, 'pw'), Number(ids), Number(gid));
  }
  const run = (tool: string, args: string[]): void => {
    const command = root ? 'runuser' : join(bin, tool);
    const full = root ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    const done = spawnSync(command, full, { encoding: 'utf8', cwd: dir, timeout: 60_000 });
    if (done.status !== 0) {
      throw new Error(`${tool} failed (${done.status}): ${done.stderr || done.stdout}`);
    }
  };
  run('initdb', [
    '-D',
    data,
    '-U',
    USER,
    `--pwfile=${join(dir, 'pw')}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  rmSync(join(dir, 'pw'));
  const ssl: string[] = [];
  if (options.tls !== undefined) {
    // PostgreSQL wants its key readable by itself alone.
    copyFileSync(options.tls.cert, join(dir, 'server.crt'));
    copyFileSync(options.tls.key, join(dir, 'server.key'));
    chmodSync(join(dir, 'server.key'), 0o600);
    if (root) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(join(dir, 'server.crt'), uid, gid);
      chownSync(join(dir, 'server.key'), uid, gid);
    }
    ssl.push(
      '-c ssl=on',
      `-c ssl_cert_file='${join(dir, 'server.crt')}'`,
      `-c ssl_key_file='${join(dir, 'server.key')}'`,
    );
  }
  const port = await freePort();
  const serverOptions = [
    `-p ${port}`,
    "-c listen_addresses='127.0.0.1'",
    `-c unix_socket_directories='${dir}'`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
    ...ssl,
  ].join(' ');
  let stopped = true;
  const server: PgServer = {
    port,
    password,
    url: (database) =>
      `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: server.url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replaceAll('"', '')}"`);
      } finally {
        await client.end();
      }
      return server.url(name);
    },
    stop(mode = 'fast') {
      if (stopped) return;
      run('pg_ctl', ['stop', '-D', data, '-m', mode, '-w']);
      stopped = true;
    },
    start() {
      if (!stopped) return;
      run('pg_ctl', ['start', '-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w']);
      stopped = false;
    },
    async terminateConnections(database) {
      const client = new pg.Client({ connectionString: server.url('postgres') });
      await client.connect();
      try {
        const result = await client.query(
          'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        );
        return Number((result.rows[0] as { n: string }).n);
      } finally {
        await client.end();
      }
    },
    destroy() {
      running.delete(server);
      try {
        server.stop('immediate');
      } catch {
        // Already gone.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  server.start();
  running.add(server);
  return server;
}
