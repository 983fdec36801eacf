import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact.js';

describe('redactUrl', () => {
  it("redacts a push check's token in its path, and leaves the web push routes", () => {
    expect(redactUrl('/api/push/SECRET-0123456789abcdef?status=up')).toBe(
      '/api/push/[redacted]?status=up',
    );
    expect(redactUrl('//API//push/SECRET-0123456789abcdef/')).toBe('//API//push/[redacted]');
    expect(redactUrl('/api/push/key')).toBe('/api/push/key');
    expect(redactUrl('/api/push/subscriptions/abc/renew')).toBe(
      '/api/push/subscriptions/abc/renew',
    );
    expect(redactUrl('/api/push/keySECRET')).toBe('/api/push/[redacted]');
  });
  it('redacts token parameters by their parsed names', () => {
    expect(redactUrl('/api/board?token=S1')).toBe('/api/board?token=[redacted]');
    expect(redactUrl('/api/board?%74oken=S1')).toBe('/api/board?%74oken=[redacted]');
    expect(redactUrl('/a?tok%65n=S1&x=1')).toBe('/a?tok%65n=[redacted]&x=1');
    expect(redactUrl('/a?%74%6F%6B%65%6E=S1')).toBe('/a?%74%6F%6B%65%6E=[redacted]');
    expect(redactUrl('/a?token=S1&token=S2&TOKEN=S3')).toBe(
      '/a?token=[redacted]&token=[redacted]&TOKEN=[redacted]',
    );
    expect(redactUrl('/a?x=1#&token=S1')).toBe('/a?x=1#&token=[redacted]');
    expect(redactUrl('/a?+token=S1&%zz&tok%65n%zz=S2')).toBe(
      '/a?+token=[redacted]&%zz&tok%65n%zz=[redacted]',
    );
  });

  it("redacts an identity provider's authorization code (the OIDC callback's query)", () => {
    expect(redactUrl('/auth/oidc/callback?code=C1&state=S&iss=https%3A%2F%2Fidp')).toBe(
      '/auth/oidc/callback?code=[redacted]&state=S&iss=https%3A%2F%2Fidp',
    );
    expect(redactUrl('/auth/oidc/callback?state=S&%63ode=C1')).toBe(
      '/auth/oidc/callback?state=S&%63ode=[redacted]',
    );
  });

  it('leaves other parameters and paths alone', () => {
    expect(redactUrl('/api/journal?limit=5')).toBe('/api/journal?limit=5');
    expect(redactUrl('/api/token/x')).toBe('/api/token/x');
    expect(redactUrl('/a?tok=1&en=2')).toBe('/a?tok=1&en=2');
  });
});
