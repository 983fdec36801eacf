/** The inbox scenario's session reads over HTTP and its --check of the listing and an ack. */
import { request } from 'undici';
import type { BenchContext } from './context.js';

/** What GET /api/sessions lists when no `limit` is given. */
export const DEFAULT_LIMIT = 1000;

interface SessionRow {
  machine: string;
  session: string;
  why: string;
  at: string;
  acknowledged_at: string | null;
}

/** --check: the open sessions of the fleet, in the inbox's order, none acknowledged. */
export function checkListing(
  ctx: BenchContext,
  page: { sessions: SessionRow[]; total: number },
  open: number,
): void {
  const wrong: string[] = [];
  if (page.total !== open) wrong.push(`total ${page.total}, not ${open}`);
  if (page.sessions.length !== Math.min(open, DEFAULT_LIMIT))
    wrong.push(`${page.sessions.length} sessions listed`);
  if (page.sessions.some((s) => s.why === 'finished' || s.acknowledged_at !== null))
    wrong.push('a finished or acknowledged session listed as open');
  if (page.sessions.some((s, i) => i > 0 && (page.sessions[i - 1]?.at ?? '') > s.at))
    wrong.push('not the longest waiting first');
  if (wrong.length > 0)
    ctx.problems.push(`inbox: GET /api/sessions?state=open: ${wrong.join('; ')}`);
}

/** --check: an acknowledgement closes the longest waiting session. */
export async function checkAck(
  ctx: BenchContext,
  url: string,
  auth: Record<string, string>,
  open: number,
): Promise<void> {
  const before = await getJson<{ sessions: SessionRow[] }>(
    `${url}/api/sessions?state=open&limit=1`,
    auth,
  );
  const s = before.sessions[0];
  if (s === undefined) return;
  const r = await request(`${url}${ackPath(s.machine, s.session)}`, {
    method: 'POST',
    headers: auth,
  });
  await r.body.text();
  const after = await getJson<{ sessions: SessionRow[]; total: number }>(
    `${url}/api/sessions?state=open&limit=1`,
    auth,
  );
  const next = after.sessions[0];
  if (
    r.statusCode !== 200 ||
    after.total !== open - 1 ||
    (next?.machine === s.machine && next.session === s.session)
  )
    ctx.problems.push(
      `inbox: acknowledging ${s.machine}/${s.session} answered ${r.statusCode}; ${after.total} open after it, not ${open - 1}`,
    );
}

export function ackPath(machine: string, session: string): string {
  return `/api/sessions/${encodeURIComponent(machine)}/${encodeURIComponent(session)}/ack`;
}

export async function fetchBytes(url: string, headers: Record<string, string>): Promise<Buffer> {
  const r = await request(url, { headers, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const bytes = Buffer.from(await r.body.arrayBuffer());
  if (r.statusCode !== 200)
    throw new Error(
      `GET ${new URL(url).pathname} answered ${r.statusCode}: ${bytes.toString().slice(0, 200)}`,
    );
  return bytes;
}

export async function getJson<T>(url: string, headers: Record<string, string>): Promise<T> {
  return JSON.parse((await fetchBytes(url, headers)).toString('utf8')) as T;
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KB`;
}
