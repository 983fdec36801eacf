import { HandedChecks } from '../checks/wire.js';
import { type Static, Type } from '../typebox.js';
import { HandedAction, HandedResult } from './action.js';
import { HttpUrl, Name } from './common.js';
import { Overview } from './overview.js';

export const REPORT_RESULTS_MAX = 100;

/**
 * POST /api/report: the agent's overview, plus `location` (where a browser reaches it) and the
 * results of actions it was handed. Overview fields are checked when present so the board view
 * stays well-formed; members the board does not know are kept.
 */
export const Report = Type.Object(
  {
    ...Type.Partial(Overview).properties,
    name: Name,
    location: HttpUrl,
    interval_s: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 86_400,
        description:
          "seconds between this machine's reports; the board marks it late after twice that",
      }),
    ),
    results: Type.Optional(Type.Array(HandedResult, { maxItems: REPORT_RESULTS_MAX })),
    key_proof: Type.Optional(
      Type.String({
        maxLength: 128,
        description:
          "HMAC-SHA256 (hex) of 'panoptes-report\\n{name}\\n{location}' under the machine's board key; " +
          'required when the board holds a key for the name (announced_keys); the untimed form of ' +
          "earlier agents, accepted for a transition. Agents now send 'panoptes-report-at\\n{name}\\n{location}\\n{key_proof_at}' instead (see key_proof_at)",
      }),
    ),
    key_proof_at: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'ISO 8601 time of the report, covered by key_proof; accepted within 5 minutes of the ' +
          "board's clock and only if newer than the machine's last accepted report (no replay)",
      }),
    ),
  },
  { additionalProperties: true, title: 'Report' },
);
export type Report = Static<typeof Report>;

/** An update of the agent's own file the board asks for (queued for an announced machine). */
export const HandedUpdate = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, description: 'the request; taken once' }),
  requested_at: Type.String({ maxLength: 40, description: 'ISO 8601 time it was asked for' }),
});
export type HandedUpdate = Static<typeof HandedUpdate>;

/**
 * The board's answer to a report: the actions queued for that machine, and an update of the
 * agent's own file when one was asked for (the agent downloads it from the board itself).
 */
export const ReportAnswer = Type.Object({
  ok: Type.Literal(true),
  actions: Type.Array(HandedAction),
  update: Type.Optional(HandedUpdate),
  checks: Type.Optional(HandedChecks),
});
export type ReportAnswer = Static<typeof ReportAnswer>;

/**
 * The board's 403 to a report. `revoked`: the name's key was revoked on the board, and the
 * agent stops honouring the board key it holds.
 */
export const ReportRefusal = Type.Object({
  detail: Type.String(),
  revoked: Type.Optional(
    Type.Literal(true, { description: "the machine's key was revoked on this board" }),
  ),
});
