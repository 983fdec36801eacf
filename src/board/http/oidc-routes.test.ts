import { describe, expect, it } from 'vitest';
import { safeReturn } from './oidc-routes.js';

describe('safeReturn: where a sign-in may send the browser back to', () => {
  it('keeps a path on this board, with its query and fragment', () => {
    expect(safeReturn('/')).toBe('/');
    expect(safeReturn('/machines/web1?range=24h#cpu')).toBe('/machines/web1?range=24h#cpu');
  });

  it('sends anything that could leave this origin to /', () => {
    for (const raw of [
      '//evil.example',
      '//evil.example/path',
      'https://evil.example/',
      'http:evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\t/evil.example',
      'javascript:alert(1)',
      'evil.example',
      '',
      undefined,
      42,
      `/${'a'.repeat(3000)}`,
    ])
      expect(safeReturn(raw), String(raw)).toBe('/');
  });
});
