import { Type } from '../typebox.js';

/** Pattern of a machine name or a published service name. */
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

/** A machine name or published service name. */
export const Name = Type.String({ pattern: NAME_PATTERN });

/** The two actions any published service may offer. */
export const ACTIONS = ['start', 'stop'] as const;
export type ActionName = (typeof ACTIONS)[number];
export const Action = Type.Union([Type.Literal('start'), Type.Literal('stop')], {
  description: 'start or stop',
  // The name pydantic gives the enum in FastAPI's OpenAPI document (a component of its own).
  title: 'ActionEnum',
});

/** Minimum length of every token and key in every config. */
export const TOKEN_MIN_LENGTH = 16;

/** A token or key as written in a config file. */
export const Token = Type.String({ minLength: TOKEN_MIN_LENGTH });

/** Longest URL the board keeps (location, url): what every browser and proxy takes. */
export const URL_MAX_LENGTH = 2048;

/**
 * An absolute http(s) URL: a scheme, a host (or user@host:port, [v6]) and optionally a path,
 * query or fragment of printable ASCII (a non-ASCII host is written in punycode).
 */
export const HTTP_URL_PATTERN =
  "^https?://[A-Za-z0-9._~%!$&'()*+,;=:@\\[\\]-]+([/?#][\\x21-\\x7e]*)?$";

/** An absolute http(s) URL of at most URL_MAX_LENGTH characters. */
export const HttpUrl = Type.String({
  pattern: HTTP_URL_PATTERN,
  maxLength: URL_MAX_LENGTH,
  description: `an absolute http:// or https:// URL, at most ${URL_MAX_LENGTH} characters`,
});
