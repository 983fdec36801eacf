import { type Me, parseMe } from './me.js';
import {
  parseBoard,
  parseCatalogue,
  parseGroups,
  parseJournal,
  parseLanguages,
  parseLiveMessage,
  parseNotify,
  parseSessions,
} from './parse.js';
import type {
  ActionName,
  Board,
  Catalogue,
  Group,
  InboxPage,
  JournalEntry,
  LanguageInfo,
  LiveMessage,
  NotifyInfo,
} from './types.js';

/** A refusal or failure of the board, with its FastAPI-shaped `detail` when there was one. */
export class ApiError extends Error {
  override name = 'ApiError';
  /** The HTTP status, or 0 when the board could not be reached. */
  readonly status: number;

  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
  }
}

/** A 422 about one label: `key` names the label it is about (null: the map as a whole). */
export class LabelError extends ApiError {
  override name = 'LabelError';
  readonly key: string | null;

  constructor(key: string | null, detail: string) {
    super(422, detail);
    this.key = key;
  }
}

/** What became of a start or stop the board was asked to relay. */
export type ActionOutcome =
  | { kind: 'done'; output: string }
  | { kind: 'failed'; message: string; exitCode: number | null }
  | { kind: 'refused'; message: string }
  | { kind: 'queued' };

/** The board's /api, as this page uses it: the token travels in the Authorization header. */
export interface Api {
  board(): Promise<{ board: Board; serverTime: number | null }>;
  journal(limit: number): Promise<JournalEntry[]>;
  languages(): Promise<LanguageInfo[]>;
  language(code: string): Promise<Catalogue>;
  act(machine: string, what: string, action: ActionName): Promise<ActionOutcome>;
  forget(machine: string): Promise<void>;
  /**
   * A fresh key for `machine` and the command that adds it (POST /api/machines/{name}/enroll),
   * with the board labels to keep for it when some are given.
   */
  enroll(machine: string, labels?: Record<string, string>): Promise<Enrolled>;
  /** Channels (name and kind) and rules. */
  notify(): Promise<NotifyInfo>;
  /** A real test delivery through one channel; rejects with the board's reason. */
  testChannel(channel: string): Promise<void>;
  /** The board's VAPID key (GET /api/push/key); rejects with 409 while push is off. */
  pushKey(): Promise<string>;
  /** Subscribes this browser (its PushSubscription JSON); answers the subscription's id. */
  subscribePush(subscription: unknown): Promise<string>;
  /** Deletes a subscription; one the board no longer has is already gone. */
  unsubscribePush(id: string): Promise<void>;
  /** Silences a machine's notifications for `minutes`. */
  silence(machine: string, minutes: number, reason: string): Promise<void>;
  unsilence(machine: string): Promise<void>;
  /** Hands a machine's agent the board's agent file (POST /api/machines/{name}/update). */
  updateAgent(machine: string): Promise<void>;
  /** Updates every machine that can be, in batches; answers their names. */
  updateAll(): Promise<string[]>;
  /** The groups of board.yaml (GET /api/groups). */
  groups(): Promise<Group[]>;
  /** Sets a machine's board labels kept by the API (the whole map); rejects with LabelError on 422. */
  setLabels(machine: string, labels: Record<string, string>): Promise<void>;
  /** The attention inbox: the first `limit` sessions (`open`: only those waiting for a person). */
  sessions(state: 'open' | 'all', limit: number): Promise<InboxPage>;
  /** Acknowledges a session's bell (POST /api/sessions/{machine}/{session}/ack). */
  acknowledge(machine: string, session: string): Promise<void>;
  /** GET a JSON document of the board's /api (unknown until a parser checked it). */
  getJson(path: string): Promise<unknown>;
  /** Who is signed in (GET /api/me); null from a board too old to say. */
  me(): Promise<Me | null>;
  /** Any request: its status and JSON body (the people and token pages read their own). */
  send(method: string, path: string, json?: unknown): Promise<{ status: number; body: unknown }>;
  /** The WebSocket address: a browser cannot set headers on one, hence `?token=` (spec 5.2). */
  liveUrl(): string;
  parseLive(data: unknown): LiveMessage | null;
}

/** The answer to enroll: the command to paste and the agent file's SHA-256. */
export interface Enrolled {
  name: string;
  command: string;
  agentSha256: string;
  /** The board's update-signing public key the command pins (absent from an older board). */
  updateKey: string | null;
}

function detailOf(body: unknown, fallback: string): string {
  if (typeof body === 'object' && body !== null && 'detail' in body) {
    const d = (body as { detail: unknown }).detail;
    if (typeof d === 'string') return d;
    if (Array.isArray(d)) {
      const msgs = d
        .map((x: unknown) =>
          typeof x === 'object' && x !== null && 'msg' in x
            ? String((x as { msg: unknown }).msg)
            : '',
        )
        .filter((s) => s !== '');
      if (msgs.length > 0) return msgs.join('; ');
    }
  }
  return fallback;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

const seg = encodeURIComponent;

/**
 * An Api for one board or API token, or for the browser's session cookie (`token` null: no
 * Authorization header, the cookie goes along); `onUnauthorized` runs when the board refuses it.
 */
export function createApi(token: string | null, onUnauthorized: () => void): Api {
  async function request(
    method: string,
    path: string,
    /** A relayed answer: a 401 in it may be the machine's, not the board's. */
    relayed = false,
    json?: unknown,
  ): Promise<{ status: number; body: unknown; date: string | null }> {
    let response: Response;
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    if (json !== undefined) headers['Content-Type'] = 'application/json';
    try {
      response = await fetch(path, {
        method,
        headers,
        credentials: token === null ? 'same-origin' : 'omit',
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
    } catch (error) {
      throw new ApiError(0, error instanceof Error ? error.message : String(error));
    }
    const body = await readJson(response);
    if (response.status === 401 && relayed) {
      // Ask the board itself: if it still takes the token, the machine refused the board.
      await request('GET', '/api/languages');
      return { status: 403, body, date: null };
    }
    if (response.status === 401) {
      onUnauthorized();
      throw new ApiError(401, detailOf(body, 'Not authenticated'));
    }
    return { status: response.status, body, date: response.headers.get('date') };
  }

  async function get(path: string): Promise<{ body: unknown; date: string | null }> {
    const r = await request('GET', path);
    if (r.status !== 200) throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
    return r;
  }

  return {
    async board() {
      const { body, date } = await get('/api/board');
      const serverTime = date === null ? Number.NaN : Date.parse(date);
      return { board: parseBoard(body), serverTime: Number.isNaN(serverTime) ? null : serverTime };
    },
    async journal(limit) {
      return parseJournal((await get(`/api/journal?limit=${limit}`)).body);
    },
    async languages() {
      return parseLanguages((await get('/api/languages')).body);
    },
    async language(code) {
      return parseCatalogue((await get(`/api/language/${seg(code)}`)).body);
    },
    async act(machine, what, action) {
      const r = await request('POST', `/api/do/${seg(machine)}/${seg(what)}/${action}`, true);
      const body = r.body;
      const rec =
        typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
      if (r.status === 200 && rec.queued === true) return { kind: 'queued' };
      if (r.status === 200 && typeof rec.ok === 'boolean') {
        const output = typeof rec.output === 'string' ? rec.output : '';
        const exitCode = typeof rec.exit_code === 'number' ? rec.exit_code : null;
        return rec.ok ? { kind: 'done', output } : { kind: 'failed', message: output, exitCode };
      }
      // The machine's own refusals (not allowed, unknown name, already running) come through
      // with their status; the board's gateway errors mean the machine was not reached.
      if (r.status === 403 || r.status === 404 || r.status === 409) {
        return { kind: 'refused', message: detailOf(body, `HTTP ${r.status}`) };
      }
      return { kind: 'failed', message: detailOf(body, `HTTP ${r.status}`), exitCode: null };
    },
    async forget(machine) {
      const r = await request('DELETE', `/api/machines/${seg(machine)}`);
      if (r.status !== 200) throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
    },
    async enroll(machine, labels) {
      const r = await request(
        'POST',
        `/api/machines/${seg(machine)}/enroll`,
        false,
        labels === undefined ? undefined : { labels },
      );
      const body = r.body as {
        name?: unknown;
        command?: unknown;
        agent_sha256?: unknown;
        update_key?: unknown;
      } | null;
      if (
        r.status !== 200 ||
        typeof body?.name !== 'string' ||
        typeof body.command !== 'string' ||
        typeof body.agent_sha256 !== 'string'
      ) {
        throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
      }
      return {
        name: body.name,
        command: body.command,
        agentSha256: body.agent_sha256,
        updateKey: typeof body.update_key === 'string' ? body.update_key : null,
      };
    },
    async notify() {
      return parseNotify((await get('/api/notify')).body);
    },
    async testChannel(channel) {
      const r = await request('POST', '/api/notify/test', false, { channel });
      if (r.status !== 200) throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
    },
    async pushKey() {
      const body = (await get('/api/push/key')).body as { public_key?: unknown } | null;
      if (typeof body?.public_key !== 'string') throw new ApiError(502, 'no public_key');
      return body.public_key;
    },
    async subscribePush(subscription) {
      const r = await request('POST', '/api/push/subscriptions', false, subscription);
      const body = r.body as { id?: unknown } | null;
      if (r.status !== 200 || typeof body?.id !== 'string')
        throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
      return body.id;
    },
    async unsubscribePush(id) {
      const r = await request('DELETE', `/api/push/subscriptions/${seg(id)}`);
      if (r.status !== 200 && r.status !== 404)
        throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
    },
    async silence(machine, minutes, reason) {
      const r = await request('POST', `/api/machines/${seg(machine)}/silence`, false, {
        minutes,
        reason,
      });
      if (r.status !== 200) throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
    },
    async unsilence(machine) {
      const r = await request('DELETE', `/api/machines/${seg(machine)}/silence`);
      if (r.status !== 200) throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
    },
    async updateAgent(machine) {
      const r = await request('POST', `/api/machines/${seg(machine)}/update`);
      if (r.status !== 202) throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
    },
    async updateAll() {
      const r = await request('POST', '/api/machines/update', false, {});
      const names = (r.body as { machines?: unknown } | null)?.machines;
      if (r.status !== 202 || !Array.isArray(names))
        throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
      return names.filter((n): n is string => typeof n === 'string');
    },
    async groups() {
      return parseGroups((await get('/api/groups')).body);
    },
    async setLabels(machine, labels) {
      const r = await request('PUT', `/api/machines/${seg(machine)}/labels`, false, { labels });
      if (r.status === 422) {
        const first = (r.body as { detail?: unknown } | null)?.detail;
        const loc = Array.isArray(first) ? (first[0] as { loc?: unknown } | undefined)?.loc : null;
        const key = Array.isArray(loc) && typeof loc[2] === 'string' ? loc[2] : null;
        throw new LabelError(key, detailOf(r.body, 'HTTP 422').replace(/^Value error, /, ''));
      }
      if (r.status !== 200) throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
    },
    async sessions(state, limit) {
      return parseSessions((await get(`/api/sessions?state=${state}&limit=${limit}`)).body);
    },
    async acknowledge(machine, session) {
      // `.` and `..` are folded away as path segments (even as %2E): those go in the query.
      const dots = session === '.' || session === '..';
      const path = dots
        ? `/api/sessions/${seg(machine)}/ack?session=${seg(session)}`
        : `/api/sessions/${seg(machine)}/${seg(session)}/ack`;
      const r = await request('POST', path);
      if (r.status !== 200) throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
    },
    async getJson(path) {
      return (await get(path)).body;
    },
    async me() {
      const r = await request('GET', '/api/me');
      if (r.status === 404) return null;
      if (r.status !== 200) throw new ApiError(r.status, detailOf(r.body, `HTTP ${r.status}`));
      return parseMe(r.body);
    },
    async send(method, path, json) {
      const r = await request(method, path, false, json);
      return { status: r.status, body: r.body };
    },
    liveUrl() {
      const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
      // A session's socket is same-origin and carries the cookie: no token in the address.
      const query = token === null ? '' : `?token=${seg(token)}`;
      return `${scheme}//${window.location.host}/api/live${query}`;
    },
    parseLive(data) {
      if (typeof data !== 'string') return null;
      return parseLiveMessage(JSON.parse(data) as unknown);
    },
  };
}
