import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { stringify } from 'yaml';
import type { SimMachine } from './fleet/protocol.js';
import { sleep } from './stats.js';

/** A fresh random token (≥ 16 characters, as the board requires). */
export function token(): string {
  return randomBytes(18).toString('base64url');
}

/** Writes `dir/board.yaml` and returns dir. */
export function writeBoardConfig(dir: string, config: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'board.yaml'), stringify(config));
  return dir;
}

/** The configured-machine entries of board.yaml for a simulated fleet. */
export function configuredMachines(machines: readonly SimMachine[]): Record<string, string>[] {
  return machines.map((m) => ({ name: m.name, url: m.url, key: m.key }));
}

/** When the last sweep ended and how long it took, read from the first bytes of GET /api/board. */
export interface SweepMark {
  sweptAt: string | null;
  sweepMs: number | null;
}

const HEAD = /^\{"swept_at":(null|"[^"]*"),"sweep_ms":(null|\d+)/;

/** Reads only the head of GET /api/board (the view of 10,000 machines is over 20 MB). */
export async function sweepMark(boardUrl: string, boardToken: string): Promise<SweepMark> {
  const controller = new AbortController();
  const response = await request(`${boardUrl}/api/board`, {
    headers: { authorization: `Bearer ${boardToken}` },
    signal: controller.signal,
    headersTimeout: 30_000,
  });
  let head = '';
  try {
    for await (const chunk of response.body) {
      head += (chunk as Buffer).toString('utf8');
      if (head.length >= 80) break;
    }
  } finally {
    controller.abort();
    response.body.destroy();
  }
  const match = HEAD.exec(head);
  if (match === null) throw new Error(`unexpected board view head: ${head.slice(0, 80)}`);
  return {
    sweptAt: match[1] === 'null' || match[1] === undefined ? null : JSON.parse(match[1]),
    sweepMs: match[2] === 'null' || match[2] === undefined ? null : Number(match[2]),
  };
}

/**
 * Waits for `count` more sweeps to end and returns their durations (the board's own
 * `sweep_ms`), polling the view's head every `everyMs`.
 */
export async function nextSweeps(
  boardUrl: string,
  boardToken: string,
  count: number,
  options: { everyMs: number; timeoutMs: number },
): Promise<number[]> {
  const deadline = Date.now() + options.timeoutMs;
  let last = (await sweepMark(boardUrl, boardToken)).sweptAt;
  const durations: number[] = [];
  while (durations.length < count) {
    if (Date.now() > deadline) {
      throw new Error(
        `only ${durations.length} of ${count} sweeps ended in ${options.timeoutMs} ms`,
      );
    }
    await sleep(options.everyMs);
    const mark = await sweepMark(boardUrl, boardToken);
    if (mark.sweptAt !== last && mark.sweepMs !== null) {
      durations.push(mark.sweepMs);
      last = mark.sweptAt;
    }
  }
  return durations;
}

/** The whole board view, as bytes and parsed. */
export async function boardView(
  boardUrl: string,
  boardToken: string,
): Promise<{ bytes: Buffer; view: BoardView }> {
  const response = await request(`${boardUrl}/api/board`, {
    headers: { authorization: `Bearer ${boardToken}` },
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  if (response.statusCode !== 200) {
    throw new Error(
      `GET /api/board answered ${response.statusCode}: ${bytes.toString().slice(0, 200)}`,
    );
  }
  return { bytes, view: JSON.parse(bytes.toString('utf8')) as BoardView };
}

export interface BoardView {
  swept_at: string | null;
  sweep_ms: number | null;
  machines: { name: string; state: string; error: string | null; origin: string }[];
}

/**
 * What the board shows for each simulated machine against what it is: answering machines
 * up (or timed out, on a busy machine), black holes down on a time-out, refusing ones down on
 * a refusal. Returns the problems.
 */
export function checkFleetView(view: BoardView, machines: readonly SimMachine[]): string[] {
  const shown = new Map(view.machines.map((m) => [m.name, m]));
  const problems = new Map<string, number>();
  const problem = (text: string) => problems.set(text, (problems.get(text) ?? 0) + 1);
  for (const m of machines) {
    const seen = shown.get(m.name);
    if (seen === undefined) {
      problem('configured machine missing from the view');
      continue;
    }
    const expected =
      m.kind === 'black-hole'
        ? /^no answer within/
        : m.kind === 'refusing'
          ? /^connection refused$/
          : null;
    // An answering machine that timed out on a busy machine is a timing, not a wrong answer.
    const timedOut = /^no answer within/.test(seen.error ?? '');
    if (expected === null && seen.state !== 'up' && !timedOut) {
      problem(`${m.kind} machine ${seen.state}: ${seen.error}`);
    }
    if (expected !== null && (seen.state !== 'down' || !expected.test(seen.error ?? ''))) {
      problem(`${m.kind} machine shown ${seen.state} (${seen.error})`);
    }
  }
  if (view.machines.length !== machines.length) {
    problem(`view lists ${view.machines.length} machines, the fleet has ${machines.length}`);
  }
  return [...problems].map(([text, n]) => `${n} × ${text}`);
}
