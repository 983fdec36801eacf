import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/**
 * Reads /proc/<pid>/cmdline of every process, over and over, in a process of its own (so a busy
 * test cannot make it miss a short-lived one), and reports the processes whose arguments hold
 * one of `secrets` (what `ps` would show anyone on the machine). The secrets reach it in its
 * environment, never in its own arguments.
 */
const SCANNER = `
const { readdirSync, readFileSync } = require('node:fs');
const secrets = JSON.parse(process.env.WATCH_SECRETS);
const found = new Set();
let scans = 0;
let stopping = false;
process.stdin.on('end', () => { stopping = true; });
process.stdin.resume();
function scan() {
  for (const pid of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(pid) || pid === String(process.pid)) continue;
    let args;
    try { args = readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' '); }
    catch { continue; }
    if (!secrets.some((secret) => args.includes(secret))) continue;
    let line = pid + ': ' + args;
    secrets.forEach((secret, i) => { line = line.split(secret).join('<secret ' + i + '>'); });
    if (!found.has(line)) { found.add(line); process.stdout.write('hit ' + line + '\\n'); }
  }
  scans += 1;
  if (scans === 1) process.stdout.write('ready\\n');
  if (stopping) { process.stdout.write('scans ' + scans + '\\n'); process.exit(0); }
  setImmediate(scan);
}
scan();
`;

export interface CmdlineWatch {
  /** Stops watching: the processes seen with a secret in their arguments, and how many scans. */
  stop(): Promise<{ hits: string[]; scans: number }>;
}

/** Starts watching; resolves once the first scan is done. */
export async function watchCmdlines(secrets: readonly string[]): Promise<CmdlineWatch> {
  const child = spawn(process.execPath, ['-e', SCANNER], {
    env: { ...process.env, WATCH_SECRETS: JSON.stringify(secrets) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const hits: string[] = [];
  let scans = 0;
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  const ready = new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line === 'ready') resolve();
      else if (line.startsWith('hit ')) hits.push(line.slice(4));
      else if (line.startsWith('scans ')) scans = Number(line.slice(6));
    });
    child.once('exit', (code) => reject(new Error(`the cmdline watch exited (${code})`)));
  });
  const closed = once(child, 'close');
  await ready;
  return {
    async stop() {
      child.stdin.end();
      await closed;
      return { hits, scans };
    },
  };
}
