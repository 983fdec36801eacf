import type { ConfigProblem } from '../../shared/config/config-error.js';
import { type Static, Type } from '../../shared/typebox.js';

/** The `push:` section of board.yaml (Web Push to browsers). */
export const PushConfigFile = Type.Object(
  {
    /** A contact the push services may write to: a mailto: address or an https: URL. */
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    /** Takes subscriptions whose endpoint is http: (local push services in tests). */
    allow_http_endpoints: Type.Optional(Type.Boolean()),
    /** Takes endpoints at loopback, private and other internal addresses (local push services in tests). */
    allow_private_endpoints: Type.Optional(Type.Boolean()),
    /** Subscriptions kept at most. */
    max_subscriptions: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  },
  { additionalProperties: false },
);
export type PushConfigFile = Static<typeof PushConfigFile>;

/** Web Push as configured; `subject` null: off (the push routes answer 409). */
export interface PushSettings {
  subject: string | null;
  allowHttpEndpoints: boolean;
  allowPrivateEndpoints: boolean;
  maxSubscriptions: number;
}

export const PUSH_DEFAULTS = { maxSubscriptions: 1000 } as const;

/** Whether a subject is what RFC 8292 asks for: a mailto: address or an https: URL. */
export function subjectProblem(subject: string): string | null {
  let url: URL;
  try {
    url = new URL(subject);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol === 'mailto:' && /^mailto:[^@\s]+@[^@\s]+$/.test(subject)) return null;
  if (url.protocol === 'https:' && url.hostname !== '' && !/\s/.test(subject)) return null;
  return 'must be a mailto: address or an https: URL (a contact for the push services)';
}

/** Checks `push:`; problems name their field. */
export function pushSettings(
  raw: PushConfigFile | undefined,
  problems: ConfigProblem[],
): PushSettings {
  const subject = raw?.subject ?? null;
  const problem = subject === null ? null : subjectProblem(subject);
  if (problem !== null) problems.push({ field: 'push.subject', problem });
  return {
    subject: problem === null ? subject : null,
    allowHttpEndpoints: raw?.allow_http_endpoints ?? false,
    allowPrivateEndpoints: raw?.allow_private_endpoints ?? false,
    maxSubscriptions: raw?.max_subscriptions ?? PUSH_DEFAULTS.maxSubscriptions,
  };
}
