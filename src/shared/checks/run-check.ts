import { type Condition, firstFailure, parseCondition } from './conditions.js';
import type { AddressGuard, Observation, Probe, ProbeOptions } from './observation.js';
import { dnsProbe } from './probes/dns.js';
import { httpProbe } from './probes/http.js';
import { icmpProbe } from './probes/icmp.js';
import { tcpProbe } from './probes/tcp.js';
import { tlsProbe } from './probes/tls.js';
import { CHECK_DETAIL_MAX, type CheckResult, type HandedCheck, type RunType } from './wire.js';

export type { AddressGuard } from './observation.js';

const PROBES: Readonly<Record<RunType, Probe>> = {
  http: httpProbe,
  tcp: tcpProbe,
  dns: dnsProbe,
  tls: tlsProbe,
  icmp: icmpProbe,
};

export interface RunOptions {
  /** Asked for every address the target resolves to; a non-null answer fails the run with it. */
  guard?: AddressGuard;
  /** The clock (tests move it). */
  now?: () => Date;
}

/** What decides a run when a check has no conditions (documented in docs/checks.md). */
const DEFAULTS = {
  http: [parseCondition('[STATUS] < 400')],
  other: [parseCondition('[CONNECTED] == true')],
};

/** One line a person reads: control characters out, at most CHECK_DETAIL_MAX characters. */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return flat.length > CHECK_DETAIL_MAX ? `${flat.slice(0, CHECK_DETAIL_MAX - 1)}…` : flat;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs the probe, giving up when the signal fires even if the probe does not. */
function observe(probe: Probe, check: HandedCheck, options: ProbeOptions): Promise<Observation> {
  const started = performance.now();
  const failed = (error: unknown): Observation => ({
    connected: false,
    responseTimeMs: performance.now() - started,
    error: messageOf(error),
  });
  return new Promise((resolve) => {
    const onAbort = () => resolve(failed(options.signal.reason));
    options.signal.addEventListener('abort', onAbort, { once: true });
    probe(check, options).then(
      (o) => {
        options.signal.removeEventListener('abort', onAbort);
        resolve(o);
      },
      (error: unknown) => {
        options.signal.removeEventListener('abort', onAbort);
        resolve(failed(error));
      },
    );
  });
}

/**
 * Runs one check once: its type's probe, then its conditions (parsed once by the caller), into
 * the result a runner reports. Never throws: a failure is `ok: false` with its detail.
 * A guard refusal fails the run; so does a probe error (refused, timed out, DNS), unless every
 * condition reads [CONNECTED] alone and nothing answered: `[CONNECTED] == false` asserts that a
 * port is closed.
 */
export async function runCheck(
  check: HandedCheck,
  conditions: readonly Condition[],
  options: RunOptions = {},
): Promise<CheckResult> {
  const now = options.now ?? (() => new Date());
  const at = now().toISOString();
  let refusal: string | null = null;
  const outer = options.guard;
  // Wrapped so a refusal is known for what it is, whatever text the probe makes of it.
  const guard: AddressGuard | undefined =
    outer === undefined
      ? undefined
      : (address) => {
          const answer = outer(address);
          if (answer !== null) refusal ??= answer;
          return answer;
        };
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`timed out after ${check.timeout_s} s`)),
    check.timeout_s * 1000,
  );
  let o: Observation;
  try {
    o = await observe(PROBES[check.type], check, {
      ...(guard === undefined ? {} : { guard }),
      signal: controller.signal,
      now,
    });
  } finally {
    clearTimeout(timer);
  }
  const applied =
    conditions.length > 0 ? conditions : check.type === 'http' ? DEFAULTS.http : DEFAULTS.other;
  const connectedOnly = applied.every((c) => c.placeholders.every((p) => p === 'CONNECTED'));
  let detail: string | null;
  if (refusal !== null) detail = o.error ?? refusal;
  // A target that answered with an error (a certificate not trusted) fails whatever is asked.
  else if (o.error !== undefined && (!connectedOnly || o.connected)) detail = o.error;
  else {
    const failed = firstFailure(applied, o);
    detail = failed === null ? null : (o.error ?? failed);
  }
  const result: CheckResult = {
    name: check.name,
    ok: detail === null,
    ms: Math.max(0, Math.round(o.responseTimeMs)),
    detail: detail === null ? '' : oneLine(detail) || 'failed',
    at,
  };
  if (o.cert !== undefined && !Number.isNaN(o.cert.notAfter.getTime())) {
    result.cert_expires_at = o.cert.notAfter.toISOString();
    result.cert = {
      fingerprint256: o.cert.fingerprint256.slice(0, 200),
      issuer: oneLine(o.cert.issuer).slice(0, 500),
    };
  }
  return result;
}
