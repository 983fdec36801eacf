#!/usr/bin/env node
// Makes the agent as one binary per platform (Node's single executable applications) from the
// one-file agent and the pinned Node binaries the npm registry carries (scripts/node-binaries.json):
// dist/agent-file/panoptes-agent-linux-x64.gz, -linux-arm64.gz (each binary is kept only gzipped,
// a third of its 150 MB: the board unzips it on the way for a client that does not take gzip),
// panoptes-agent.mjs with its .gz, and SHA256SUMS of the unzipped files. The Node binaries are
// unpacked for the build and removed after it (npm's own cache keeps their packages).
// Without the registry it warns and serves the .mjs alone, unless CI=true, where it fails.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import {
  AGENT_MJS,
  binaryName,
  checkIntegrity,
  hostPlatform,
  integrityOf,
  stampKey,
  sumsText,
} from './agent-binaries.mjs';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist/agent-file');
const PINS = JSON.parse(readFileSync(join(ROOT, 'scripts/node-binaries.json'), 'utf8'));
const FLAGS = JSON.parse(readFileSync(join(ROOT, 'src/agent/v8-flags.json'), 'utf8'));
const CACHE = resolve(
  process.env.PANOPTES_NODE_CACHE ?? join(ROOT, 'node_modules/.cache/panoptes-node'),
);
// One stamp per output directory: worktrees may share node_modules, and so this cache.
const STAMP = join(
  CACHE,
  `stamp-${createHash('sha256').update(OUT).digest('hex').slice(0, 12)}.json`,
);
// Bumped when this script makes its binaries differently.
const BUILDER = 2;
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const CI = process.env.CI === 'true';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const platforms = Object.keys(PINS.platforms);

/**
 * The Node binary of a platform, unpacked into `work` from its npm package (checked against its
 * pin). `--prefer-offline`: a package npm's cache holds is taken from there, without the network.
 */
async function nodeFor(platform, work) {
  const pin = PINS.platforms[platform];
  const dir = join(work, platform);
  mkdirSync(dir, { recursive: true });
  const spec = `${pin.package}@${PINS.version}`;
  const { stdout } = await run(
    'npm',
    [
      'pack',
      spec,
      '--pack-destination',
      dir,
      '--json',
      '--prefer-offline',
      '--fetch-retries=1',
      '--loglevel=error',
    ],
    { timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error) => {
    throw Object.assign(new Error(`npm pack ${spec}: ${firstLine(error)}`), { offline: true });
  });
  const [packed] = JSON.parse(stdout);
  checkIntegrity(spec, pin.integrity, packed?.integrity);
  const tgz = join(dir, packed.filename);
  // npm's word and our own: the bytes on disk are the pinned ones.
  checkIntegrity(`${spec} (${packed.filename})`, pin.integrity, integrityOf(readFileSync(tgz)));
  await run('tar', ['-xzf', tgz, '-C', dir, 'package/bin/node']);
  rmSync(tgz, { force: true });
  const node = join(dir, 'package/bin/node');
  chmodSync(node, 0o755);
  return node;
}

function firstLine(error) {
  const text = `${error.stderr ?? ''}`.trim() || error.message;
  return text.split('\n').find((l) => l.trim() !== '') ?? 'failed';
}

/** The SEA blob, made by the host's Node of the pinned version (the same blob serves every target). */
async function makeBlob(hostNode) {
  const tmp = mkdtempSync(join(CACHE, '.blob-'));
  const config = {
    main: join(OUT, AGENT_MJS),
    mainFormat: 'module',
    output: join(tmp, 'blob.bin'),
    disableExperimentalSEAWarning: true,
    // Neither is portable across platforms; without them one blob serves them all.
    useCodeCache: false,
    useSnapshot: false,
    execArgv: FLAGS,
  };
  writeFileSync(join(tmp, 'sea.json'), JSON.stringify(config));
  try {
    await run(hostNode, ['--experimental-sea-config', join(tmp, 'sea.json')], { cwd: tmp });
    return readFileSync(join(tmp, 'blob.bin'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Injects the blob into `node` itself (an unpacked copy of the build's own). */
async function inject(node, blob) {
  const { inject: postject } = createRequire(import.meta.url)('postject');
  // LIEF (inside postject) warns of every note section Node's binaries carry: harmless noise.
  const warn = console.warn;
  console.warn = (...args) => {
    if (!/^warning: Can't find string offset for section name/.test(String(args[0]))) warn(...args);
  };
  try {
    await postject(node, 'NODE_SEA_BLOB', blob, { sentinelFuse: SENTINEL });
  } finally {
    console.warn = warn;
  }
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return null;
  }
}

/** Whether every output the stamp names (each binary's .gz) is still there as written. */
function outputsIntact(stamp) {
  return platforms.every((p) => {
    const seen = stamp.outputs?.[`${binaryName(p)}.gz`];
    try {
      const s = statSync(join(OUT, `${binaryName(p)}.gz`));
      return seen !== undefined && s.size === seen.size && s.mtimeMs === seen.mtimeMs;
    } catch {
      return false;
    }
  });
}

/** Streams `source` gzipped (level 6: a binary is ~150 MB) into `gz`, through a .tmp. */
async function gzipTo(source, gz) {
  const tmp = `${gz}.tmp`;
  try {
    await pipeline(createReadStream(source), createGzip({ level: 6 }), createWriteStream(tmp));
    renameSync(tmp, gz);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Writes <file>.gz unless one newer than the file is there already; the board serves a .gz
 * beside its file only while it is newer than the file.
 */
async function gzipBeside(name) {
  const path = join(OUT, name);
  const gz = `${path}.gz`;
  if (existsSync(gz) && statSync(gz).mtimeMs > statSync(path).mtimeMs) return false;
  await gzipTo(path, gz);
  return true;
}

/** The .gz of every served file, side by side (zlib works in libuv's threads), timed. */
async function gzipAll(names) {
  const started = performance.now();
  const written = (await Promise.all(names.map(gzipBeside))).filter(Boolean).length;
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  if (written > 0) console.log(`agent files: ${written} gzipped in ${secs} s`);
}

function writeSums(entries) {
  writeFileSync(join(OUT, 'SHA256SUMS'), sumsText(entries));
}

/** The unpacked Node binaries earlier builds kept in CACHE/<version>/ (~290 MB): no longer used. */
function removeCachedNodes() {
  for (const f of readdirSync(CACHE)) {
    if (/^\d+\.\d+\.\d+$/.test(f)) rmSync(join(CACHE, f), { recursive: true, force: true });
  }
}

/** A binary kept as it is by an earlier build: only its .gz stays (the board serves either). */
function removePlainBinaries() {
  for (const p of platforms) rmSync(join(OUT, binaryName(p)), { force: true });
}

/** Binaries that would not match this bundle leave the directory, so SUMS lists what is there. */
function removeBinaries() {
  for (const f of readdirSync(OUT)) {
    if (f.startsWith('panoptes-agent-') || f.endsWith('.tmp'))
      rmSync(join(OUT, f), { force: true });
  }
  rmSync(STAMP, { force: true });
}

async function main() {
  const started = performance.now();
  const bundle = readFileSync(join(OUT, AGENT_MJS));
  const mjs = { name: AGENT_MJS, sha256: sha256(bundle) };
  const key = stampKey({ bundleSha256: mjs.sha256, pins: PINS, flags: FLAGS, builder: BUILDER });
  const stamp = readStamp();
  if (stamp?.key === key && outputsIntact(stamp)) {
    writeSums([mjs, ...stamp.sums]);
    removePlainBinaries();
    await gzipAll([AGENT_MJS]);
    return;
  }
  const host = hostPlatform();
  if (!platforms.includes(host)) {
    removeBinaries();
    writeSums([mjs]);
    await gzipAll([AGENT_MJS]);
    const why = `agent binaries: no pinned Node for this build machine (${host}); serving ${AGENT_MJS} alone`;
    if (CI) throw new Error(why);
    console.warn(why);
    return;
  }
  mkdirSync(CACHE, { recursive: true });
  removeCachedNodes();
  const work = mkdtempSync(join(CACHE, '.nodes-'));
  try {
    let nodes;
    try {
      nodes = {};
      for (const p of platforms) nodes[p] = await nodeFor(p, work);
    } catch (error) {
      if (!error.offline || CI) throw error;
      removeBinaries();
      writeSums([mjs]);
      await gzipAll([AGENT_MJS]);
      console.warn(`agent binaries: not built (${error.message}); serving ${AGENT_MJS} alone`);
      return;
    }
    const blob = await makeBlob(nodes[host]);
    const sums = [];
    const outputs = {};
    for (const p of platforms) {
      const name = binaryName(p);
      await inject(nodes[p], blob);
      sums.push({ name, sha256: sha256(readFileSync(nodes[p])) });
      const gz = join(OUT, `${name}.gz`);
      await gzipTo(nodes[p], gz);
      rmSync(nodes[p], { force: true });
      const s = statSync(gz);
      outputs[`${name}.gz`] = { size: s.size, mtimeMs: s.mtimeMs };
    }
    removePlainBinaries();
    writeSums([mjs, ...sums]);
    writeFileSync(STAMP, JSON.stringify({ key, outputs, sums }));
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `agent binaries: ${platforms.map((p) => `${binaryName(p)}.gz`).join(', ')} built in ${secs} s`,
    );
    await gzipAll([AGENT_MJS]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  console.error(`agent binaries: ${error.message}`);
  process.exitCode = 1;
}
