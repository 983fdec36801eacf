import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { importGatus } from './import-gatus.js';

function checks(text: string): Record<string, unknown>[] {
  const out = importGatus(text);
  return (parse(out.yaml) as { checks: Record<string, unknown>[] } | null)?.checks ?? [];
}

describe('importGatus', () => {
  it('makes names the board takes, unique without regard to case', () => {
    const yaml = [
      'endpoints:',
      '  - { name: "Ünïcode API (prod)", url: "https://a.example/" }',
      '  - { name: "ünïcode api (prod)", url: "https://b.example/" }',
      '  - { name: "--", url: "https://c.example/" }',
      `  - { name: "${'x'.repeat(100)}", url: "https://d.example/" }`,
    ].join('\n');
    const names = checks(yaml).map((c) => c.name);
    expect(names).toEqual(['Unicode-API-prod', 'unicode-api-prod-2', 'check', 'x'.repeat(60)]);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/);
  });

  it('turns a compound Gatus duration into seconds and keeps a simple one', () => {
    const yaml = [
      'endpoints:',
      '  - { name: a, url: "tcp://h:1", interval: 1m30s }',
      '  - { name: b, url: "tcp://h:1", interval: 45s }',
      '  - { name: c, url: "tcp://h:1", interval: soon }',
    ].join('\n');
    expect(checks(yaml).map((c) => c.interval)).toEqual([90, '45s', undefined]);
    expect(importGatus(yaml).unmapped).toEqual(['endpoints[2] "c": interval soon']);
  });

  it('reads a dns resolver given with a scheme and port', () => {
    const yaml = [
      'endpoints:',
      '  - name: d',
      '    url: "udp://9.9.9.9:53"',
      '    dns: { query-name: example.org, query-type: MX }',
    ].join('\n');
    expect(checks(yaml)[0]).toMatchObject({
      type: 'dns',
      target: 'example.org',
      record: 'MX',
      resolver: '9.9.9.9:53',
    });
  });

  it('imports nothing from a file without endpoints, or one that is not a map', () => {
    expect(importGatus('endpoints: []\n')).toEqual({ yaml: '', imported: 0, unmapped: [] });
    expect(importGatus('- a\n- b\n')).toMatchObject({
      imported: 0,
      unmapped: ['the file is not a YAML map'],
    });
    expect(importGatus('endpoints:\n  - just-a-string\n').unmapped).toEqual([
      'endpoints[0]: not a map',
    ]);
  });
});
