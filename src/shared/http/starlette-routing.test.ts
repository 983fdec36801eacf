import { describe, expect, it } from 'vitest';
import { RouteTable } from './starlette-routing.js';

describe('RouteTable', () => {
  it('a `:name{path}` parameter spans segments, as Starlette’s path convertor does', () => {
    const table = new RouteTable();
    table.add(['POST'], '/api/sessions/:machine/:session/ack');
    table.add(['POST'], '/api/sessions/:machine/*', '/api/sessions/:machine/:session{path}/ack');
    const url = '/api/sessions/:machine/*';
    expect(table.serves(url, '/api/sessions/web1/feature/login/ack')).toBe(true);
    expect(table.serves(url, '/api/sessions/web1/a//b/ack')).toBe(true);
    expect(table.serves(url, '/api/sessions/web1/feature/login/other')).toBe(false);
    expect(table.serves(url, '/api/sessions/web1//ack')).toBe(false);
    expect(table.decide('POST', '/api/sessions/web1/feature/login/ack')).toEqual({ kind: 'full' });
    expect(table.decide('GET', '/api/sessions/web1/feature/login/ack')).toEqual({
      kind: 'method',
      allow: ['POST'],
    });
    // Not the wildcard's `.*`: another path under a machine is still no route.
    expect(table.decide('GET', '/api/sessions/web1/x/y')).toEqual({ kind: 'none' });
  });
});
