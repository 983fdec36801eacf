import { discord } from './discord.js';
import { email } from './email.js';
import { googlechat } from './googlechat.js';
import { gotify } from './gotify.js';
import { matrix } from './matrix.js';
import { mattermost } from './mattermost.js';
import { ntfy } from './ntfy.js';
import { pushover } from './pushover.js';
import { slack } from './slack.js';
import { teams } from './teams.js';
import { telegram } from './telegram.js';
import {
  type ChannelKind,
  type ChannelOptions,
  ChannelUrlError,
  KINDS,
  type Kind,
  type ParsedChannel,
} from './types.js';
import { webhook } from './webhook.js';
import { webpush } from './webpush.js';

/** A module for every name of `KINDS`, and none besides: a missing or extra one fails tsc. */
export type ChannelModules = { readonly [K in Kind]: ChannelKind<K> };

const MODULES: ChannelModules = {
  webhook,
  ntfy,
  slack,
  discord,
  teams,
  mattermost,
  googlechat,
  telegram,
  pushover,
  gotify,
  matrix,
  email,
  webpush,
};

/** Every kind of channel, one module each, in the order of `KINDS`. */
export const CHANNEL_KINDS: readonly ChannelKind[] = KINDS.map((kind) => MODULES[kind]);

const BY_SCHEME = new Map(CHANNEL_KINDS.flatMap((k) => k.schemes.map((s) => [s, k] as const)));

/** Parses a channel URL by its scheme; throws ChannelUrlError (never quoting the URL). */
export function parseChannelUrl(text: string, options: ChannelOptions = {}): ParsedChannel {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ChannelUrlError('is not a URL (scheme://…)');
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const kind = BY_SCHEME.get(scheme);
  if (kind === undefined) {
    throw new ChannelUrlError(
      `has an unknown scheme ${scheme}:// (known: ${[...BY_SCHEME.keys()].join(', ')})`,
    );
  }
  if (options.secret !== undefined && kind.kind !== 'webhook')
    throw new ChannelUrlError('secret: applies to http(s):// webhooks only');
  return kind.parse(url, options);
}
