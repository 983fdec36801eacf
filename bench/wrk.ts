import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checksLua } from './fleet/checks.js';
import { labelsLua } from './fleet/labels.js';
import { overview } from './fleet/overview.js';

/** What one wrk run measured. */
export interface WrkResult {
  requests: number;
  requestsPerSec: number;
  /** Latency percentiles in ms (wrk --latency). */
  p50: number;
  p99: number;
  /** Socket errors (connect, read, write, timeout) and non-2xx/3xx answers. */
  errors: number;
  non2xx: number;
  raw: string;
}

export interface WrkOptions {
  url: string;
  connections: number;
  durationS: number;
  headers?: Record<string, string>;
  script?: string;
  timeoutS?: number;
}

/** Runs wrk (one thread: the other core is the server's) and parses its report. */
export async function wrk(options: WrkOptions): Promise<WrkResult> {
  const args = [
    '-t1',
    `-c${options.connections}`,
    `-d${options.durationS}s`,
    `--timeout`,
    `${options.timeoutS ?? 10}s`,
    '--latency',
  ];
  for (const [name, value] of Object.entries(options.headers ?? {}))
    args.push('-H', `${name}: ${value}`);
  if (options.script !== undefined) args.push('-s', options.script);
  args.push(options.url);
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  let raw = '';
  child.stdout.on('data', (c: Buffer) => {
    raw += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    raw += c.toString('utf8');
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), (options.durationS + 30) * 1000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(killer);
  if (code !== 0) throw new Error(`wrk exited ${code}:\n${raw}`);
  return parseWrk(raw);
}

/** Parses wrk's text report. */
export function parseWrk(raw: string): WrkResult {
  const number = (re: RegExp): number => {
    const m = re.exec(raw);
    return m?.[1] !== undefined ? Number(m[1]) : Number.NaN;
  };
  const percentile = (p: number): number => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(raw);
    if (m?.[1] === undefined) return Number.NaN;
    const scale = m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1;
    return Number(m[1]) * scale;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(raw);
  const socketErrors = socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0);
  const non2xx = number(/Non-2xx or 3xx responses: (\d+)/);
  return {
    requests: number(/(\d+) requests in/),
    requestsPerSec: number(/Requests\/sec:\s+([\d.]+)/),
    p50: percentile(50),
    p99: percentile(99),
    errors: socketErrors + (Number.isNaN(non2xx) ? 0 : non2xx),
    non2xx: Number.isNaN(non2xx) ? 0 : non2xx,
    raw,
  };
}

/** What the bodies of a report script carry and how they vary. */
export interface ReportScriptOptions {
  /** DESIGN.md 11's fields in every body (bench/fleet/machine-now.ts). */
  machineNow?: boolean;
  /** Each machine's 8 labels in every body (bench/fleet/labels.ts). */
  labels?: boolean;
  /** The checks' version in every body, and with `results` 10 new results each (bench/fleet/checks.ts). */
  checks?: { version: string; results: boolean };
  /** How many different overviews take turns (1: one, only the uptime changes). */
  variants?: number;
  /** The script's file name in `dir`. */
  file?: string;
}

/**
 * A wrk Lua script that posts reports in turn from `machines` announcing machines (the same
 * names and locations as the simulator's announcers), each body a realistic overview that
 * differs from the last: its uptime, and with `variants` > 1 the overview of a later answer.
 */
export function reportScript(
  dir: string,
  machines: number,
  token: string,
  options: ReportScriptOptions = {},
): string {
  const variants = options.variants ?? 1;
  const now = Date.now();
  const tails = Array.from({ length: variants }, (_, seq) => {
    const shape = { name: 'a00001', index: 1, machineNow: options.machineNow === true };
    const { name: _name, uptime_s: _uptime, ...rest } = overview(shape, seq + 1, now);
    const tail = JSON.stringify(rest).slice(1);
    if (tail.includes(']==]')) throw new Error('overview text cannot go into a Lua long string');
    return `[==[${tail}]==]`;
  });
  // A machine's next report is `machines` requests later: with `variants` prime to `machines`
  // it is another variant.
  const labels = options.labels === true;
  const checks = options.checks;
  const lua = `${labels ? labelsLua() : ''}${checks === undefined ? '' : checksLua(checks.version, checks.results)}
local rests = { ${tails.join(', ')} }
local n = ${machines}
local i = 0
local k = 0
local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer ${token}" }
request = function()
  i = i % n + 1
  k = k + 1
  local idx = i - 1
  local loc = "http://127.20." .. math.floor(idx / 250) .. "." .. (idx % 250 + 1) .. ":8701"
  local body = '{"name":"a' .. string.format("%05d", i) .. '","location":"' .. loc ..
    '","uptime_s":' .. (86400 + k) .. ',' .. ${labels ? "labels(idx) .. ',' .. " : ''}${checks === undefined ? '' : "checks(idx, k) .. ',' .. "}rests[k % ${variants} + 1]
  return wrk.format("POST", "/api/report", headers, body)
end
`;
  const file = join(dir, options.file ?? 'reports.lua');
  writeFileSync(file, lua);
  return file;
}

/** The best round of each side: the highest throughput and the lowest p99 seen. */
export interface Comparison {
  board: WrkResult;
  bare: WrkResult;
}

/**
 * Runs wrk against the board and the bare server in alternating rounds and keeps each
 * side's best round, so that a burst of other load on the machine does not fall on one side
 * only (the machine may be shared; the figures are best-of-N, said so in the table).
 */
export async function alternate(
  rounds: number,
  board: WrkOptions,
  bare: WrkOptions,
  onBoardRound?: () => void,
): Promise<Comparison> {
  const boardRounds: WrkResult[] = [];
  const bareRounds: WrkResult[] = [];
  for (let i = 0; i < rounds; i++) {
    boardRounds.push(await wrk(board));
    onBoardRound?.();
    bareRounds.push(await wrk(bare));
  }
  return { board: best(boardRounds), bare: best(bareRounds) };
}

/** The best of several rounds: highest throughput, lowest latencies, all errors counted. */
export function best(rounds: readonly WrkResult[]): WrkResult {
  const first = rounds[0];
  if (first === undefined) throw new Error('no wrk rounds');
  return {
    ...first,
    requests: rounds.reduce((sum, r) => sum + r.requests, 0),
    requestsPerSec: Math.max(...rounds.map((r) => r.requestsPerSec)),
    p50: Math.min(...rounds.map((r) => r.p50)),
    p99: Math.min(...rounds.map((r) => r.p99)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

/** `rounds` wrk runs one after another with the same options; their best (see `best`). */
export async function bestOf(rounds: number, options: WrkOptions): Promise<WrkResult> {
  const results: WrkResult[] = [];
  for (let i = 0; i < rounds; i++) results.push(await wrk(options));
  return best(results);
}
