import { describe, expect, it } from 'vitest';
import { CHANNEL_KINDS, type ChannelModules, parseChannelUrl } from './index.js';
import { slack } from './slack.js';
import { KINDS } from './types.js';
import { webhook } from './webhook.js';

/** `KINDS` is the one list of channel kinds; tsc (npm run check) holds the modules to it. */
describe('the registry of channel kinds', () => {
  it('has one module for each name of KINDS, in its order, each under its own name', () => {
    expect(CHANNEL_KINDS.map((k) => k.kind)).toEqual([...KINDS]);
    expect(new Set(CHANNEL_KINDS).size).toBe(KINDS.length);
  });

  it('is refused by tsc when a name has no module, or a module sits under another name', () => {
    // @ts-expect-error a name of KINDS without its module
    const missing: Partial<ChannelModules> & ChannelModules = { webhook };
    // @ts-expect-error a module under a name that is not its own
    const swapped: Pick<ChannelModules, 'slack'> = { slack: webhook };
    const right: Pick<ChannelModules, 'slack'> = { slack };
    expect([missing.webhook, swapped.slack, right.slack].map((k) => k.kind)).toEqual([
      'webhook',
      'webhook',
      'slack',
    ]);
  });

  it("parses a URL with the module of its scheme's kind", () => {
    for (const kind of CHANNEL_KINDS) {
      expect(kind.schemes.length, kind.kind).toBeGreaterThan(0);
    }
    expect(parseChannelUrl('ntfy://ntfy.example/topic').kind).toBe('ntfy');
  });
});
