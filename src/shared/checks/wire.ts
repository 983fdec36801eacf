import { type Static, Type } from '../typebox.js';

/** The check types a runner (an agent, or the board) runs; `push` is kept by the board alone. */
export const RUN_TYPES = ['http', 'tcp', 'dns', 'tls', 'icmp'] as const;
export type RunType = (typeof RUN_TYPES)[number];
export type CheckType = RunType | 'push';

/** A check's name: in URLs, metric labels and chat lines, so one short word. */
export const CHECK_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$';
export const CheckName = Type.String({ pattern: CHECK_NAME_PATTERN });

/** Most checks one runner is handed (and reports results for): as many as board.yaml may hold. */
export const CHECKS_PER_RUNNER_MAX = 10_000;
/** Longest `detail` of a result: one line a person reads. */
export const CHECK_DETAIL_MAX = 300;

// Spelled out (not mapped from RUN_TYPES) so that the static type is the union of the five.
const RunTypeSchema = Type.Union(
  [
    Type.Literal('http'),
    Type.Literal('tcp'),
    Type.Literal('dns'),
    Type.Literal('tls'),
    Type.Literal('icmp'),
  ],
  { description: 'what the runner does: http, tcp, dns, tls or icmp' },
);

/** Options of an `http` check. */
export const HttpOptions = Type.Object(
  {
    method: Type.String({ pattern: '^[A-Z]{1,16}$' }),
    headers: Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 4096 })),
    body: Type.String({ maxLength: 65_536 }),
    follow_redirects: Type.Boolean(),
    verify_tls: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type HttpOptions = Static<typeof HttpOptions>;

/** Options of a `dns` check: the record type asked for and the resolver asked (host[:port]). */
export const DnsOptions = Type.Object(
  {
    record: Type.String({ pattern: '^[A-Z]{1,10}$' }),
    resolver: Type.Optional(Type.String({ maxLength: 300 })),
  },
  { additionalProperties: false },
);
export type DnsOptions = Static<typeof DnsOptions>;

/** Options of a `tls` check: the name the certificate must be valid for (else the target's). */
export const TlsOptions = Type.Object(
  { hostname: Type.Optional(Type.String({ maxLength: 253 })) },
  { additionalProperties: false },
);
export type TlsOptions = Static<typeof TlsOptions>;

/** A check as the board hands it to a runner: everything needed to run it, no secret. */
export const HandedCheck = Type.Object(
  {
    name: CheckName,
    type: RunTypeSchema,
    target: Type.String({ minLength: 1, maxLength: 2048 }),
    interval_s: Type.Number({ minimum: 1, maximum: 86_400 }),
    timeout_s: Type.Number({ exclusiveMinimum: 0, maximum: 300 }),
    conditions: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 50 }),
    http: Type.Optional(HttpOptions),
    dns: Type.Optional(DnsOptions),
    tls: Type.Optional(TlsOptions),
  },
  { additionalProperties: false },
);
export type HandedCheck = Static<typeof HandedCheck>;

/** The checks a runner is to run, and their version (it sends the version back; see below). */
export const HandedChecks = Type.Object(
  {
    version: Type.String({ maxLength: 100 }),
    checks: Type.Array(HandedCheck, { maxItems: CHECKS_PER_RUNNER_MAX }),
  },
  {
    description:
      'handed to a runner when the version it reports (checks_version) differs from the board’s; ' +
      'an empty list means it runs none',
  },
);
export type HandedChecks = Static<typeof HandedChecks>;

/** What a runner saw when it last ran one check. */
export const CheckResult = Type.Object({
  name: CheckName,
  ok: Type.Boolean({ description: 'every condition held' }),
  ms: Type.Number({ minimum: 0, description: 'response time in milliseconds' }),
  detail: Type.String({
    maxLength: CHECK_DETAIL_MAX,
    description: 'empty when ok; else the error or the first condition that failed',
  }),
  at: Type.String({ maxLength: 40, description: 'ISO 8601 time of the run' }),
  cert_expires_at: Type.Optional(
    Type.String({ maxLength: 40, description: 'the certificate’s notAfter (http over TLS, tls)' }),
  ),
  cert: Type.Optional(
    Type.Object({
      fingerprint256: Type.String({ maxLength: 200 }),
      issuer: Type.String({ maxLength: 500 }),
    }),
  ),
});
export type CheckResult = Static<typeof CheckResult>;

/** The members a runner adds to its overview. */
export const CheckOverviewFields = {
  checks: Type.Optional(
    Type.Array(CheckResult, {
      maxItems: CHECKS_PER_RUNNER_MAX,
      description: 'the last result of each check the board handed this machine',
    }),
  ),
  checks_version: Type.Optional(
    Type.String({
      maxLength: 100,
      description: 'the version of the checks this machine was last handed ("" for none yet)',
    }),
  ),
};
