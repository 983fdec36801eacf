import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What the root file system holds beyond minbase: systemd as init, and what the pasted command runs. */
export const ROOTFS_PACKAGES = ['systemd', 'systemd-sysv', 'curl', 'ca-certificates', 'libstdc++6'];

/** Bumped when the recipe below changes, so that a cached tar of the old recipe is not used. */
const RECIPE = 1;

/** Why a Debian root file system cannot be made here, or null. */
export function rootfsMissing(): string | null {
  if (process.getuid?.() !== 0) return 'debootstrap and a rootful Podman need root';
  if (spawnSync('sh', ['-c', 'command -v debootstrap']).status !== 0) {
    return 'debootstrap not installed: apt-get install -y debootstrap (.ci/run does this)';
  }
  return null;
}

/** The suite: this machine's Debian release when debootstrap knows it (its Node runs there), else bookworm. */
function suite(): string {
  const release = existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : '';
  const codename = /^VERSION_CODENAME=(\w+)$/m.exec(release)?.[1];
  if (codename !== undefined && existsSync(`/usr/share/debootstrap/scripts/${codename}`)) {
    return codename;
  }
  return 'bookworm';
}

/**
 * The Debian mirror: PANOPTES_DEBIAN_MIRROR, else the first Debian (not security) URI in this
 * machine's apt sources, else deb.debian.org.
 */
export function debianMirror(): string {
  const fromEnv = process.env.PANOPTES_DEBIAN_MIRROR;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const files = ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list'];
  for (const file of files) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    for (const m of text.matchAll(/(?:URIs:|^deb)\s+(?:\[[^\]]*\]\s+)?(https?:\/\/\S+)/gm)) {
      const uri = m[1] as string;
      if (/\/debian\/?$/.test(uri)) return uri;
    }
  }
  return 'http://deb.debian.org/debian';
}

/** A Debian root file system as a tar for `podman import`, and how it was had. */
export interface Rootfs {
  tar: string;
  suite: string;
  /** Seconds debootstrap and tar took; null when the cached tar was used. */
  builtSeconds: number | null;
  bytes: number;
}

/**
 * A minimal Debian (debootstrap --variant=minbase, ROOTFS_PACKAGES, apt's caches and the docs
 * removed) as a tar, cached in the temporary directory by suite and recipe: the first run takes
 * about a minute, later ones nothing. Built in a private directory and renamed into place, so two
 * runs at once never read half a tar.
 */
export async function debianRootfs(): Promise<Rootfs> {
  const missing = rootfsMissing();
  if (missing !== null) throw new Error(missing);
  const name = suite();
  const key = createHash('sha256')
    .update(JSON.stringify({ RECIPE, name, ROOTFS_PACKAGES, arch: process.arch }))
    .digest('hex')
    .slice(0, 16);
  const tar = join(tmpdir(), `panoptes-debian-rootfs-${key}.tar`);
  if (existsSync(tar)) return { tar, suite: name, builtSeconds: null, bytes: statSync(tar).size };
  const started = performance.now();
  const work = mkdtempSync(join(tmpdir(), 'panoptes-debootstrap-'));
  const root = join(work, 'rootfs');
  try {
    const args = ['--variant=minbase', `--include=${ROOTFS_PACKAGES.join(',')}`, name, root];
    try {
      await run('debootstrap', [...args, debianMirror()], {
        timeout: 15 * 60_000,
        maxBuffer: 64 * 1024 * 1024,
      });
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; message: string };
      const said = `${e.stderr ?? ''}${e.stdout ?? ''}`.trim().split('\n').slice(-5).join('\n');
      throw new Error(
        `debootstrap ${args.join(' ')} ${debianMirror()} failed: ${said || e.message}`,
      );
    }
    // Nothing in the container installs packages: apt's lists and caches, docs and locales go.
    for (const dir of [
      'var/cache/apt',
      'var/lib/apt/lists',
      'usr/share/doc',
      'usr/share/man',
      'usr/share/locale',
    ]) {
      rmSync(join(root, dir), { recursive: true, force: true });
    }
    const partial = join(work, 'rootfs.tar');
    await run('tar', ['--numeric-owner', '-C', root, '-cf', partial, '.'], {
      timeout: 5 * 60_000,
    });
    renameSync(partial, tar);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const builtSeconds = Math.round((performance.now() - started) / 100) / 10;
  return { tar, suite: name, builtSeconds, bytes: statSync(tar).size };
}
