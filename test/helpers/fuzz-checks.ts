// An answer's checks: no 5xx, FastAPI's error shape, the headers its status promises, no secret.
import type { FuzzAnswer, FuzzRequest } from './fuzz-requests.js';

function isIssue(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const i = v as Record<string, unknown>;
  const keys = Object.keys(i);
  return (
    Array.isArray(i.loc) &&
    i.loc.every((p) => typeof p === 'string' || Number.isInteger(p)) &&
    typeof i.msg === 'string' &&
    typeof i.type === 'string' &&
    (i.ctx === undefined || (i.ctx !== null && typeof i.ctx === 'object')) &&
    keys.every((k) => ['loc', 'msg', 'type', 'ctx', 'input', 'url'].includes(k))
  );
}

/** Whether a body is FastAPI's error shape: {"detail": "…"} or an HTTPValidationError. */
export function isErrorShape(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  if (Object.keys(v).length !== 1 || !('detail' in v)) return false;
  if (typeof v.detail === 'string') return v.detail.length > 0;
  return Array.isArray(v.detail) && v.detail.length > 0 && v.detail.every(isIssue);
}

/**
 * What is wrong with an answer: a 5xx, a connection cut, a 4xx not of the documented shape, a
 * missing header the status promises, or a secret in it. Empty when all is well.
 */
export function problemsWith(
  req: FuzzRequest,
  answer: FuzzAnswer | { error: string },
  secrets: readonly string[],
  allowCut: (req: FuzzRequest) => boolean = bodyOverLimit,
): string[] {
  if ('error' in answer) {
    return allowCut(req) ? [] : [`the connection failed: ${answer.error}`];
  }
  const problems: string[] = [];
  const { status, headers: h, text } = answer;
  if (status >= 500) problems.push(`answered ${status}: ${text.slice(0, 300)}`);
  if (status >= 400 && status < 500 && req.method !== 'HEAD') {
    if (!isErrorShape(text))
      problems.push(`a ${status} not of the documented shape: ${text.slice(0, 300)}`);
    if (!/^application\/json/.test(h['content-type'] ?? '')) {
      problems.push(`a ${status} with content-type ${h['content-type']}`);
    }
  }
  if (status === 401 && h['www-authenticate'] !== 'Bearer')
    problems.push('401 without WWW-Authenticate: Bearer');
  if (status === 405 && !(h.allow ?? '').length) problems.push('405 without Allow');
  if (status === 429 && !/^\d+$/.test(h['retry-after'] ?? ''))
    problems.push('429 without Retry-After');
  const all = `${text}\n${JSON.stringify(h)}`;
  secrets.forEach((s, i) => {
    if (all.includes(s) || all.includes(encodeURIComponent(s)))
      problems.push(`secret #${i} in the answer`);
  });
  return problems;
}

/** Bodies over 1 MiB: the server may answer 413 and close before it has read them. */
export function bodyOverLimit(req: FuzzRequest): boolean {
  return req.body !== null && req.body.length > 1024 * 1024;
}
