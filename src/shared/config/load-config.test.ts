import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { Type } from '../typebox.js';
import { ConfigError } from './config-error.js';
import { loadConfig } from './load-config.js';

const Schema = Type.Object(
  {
    token: Type.String({ minLength: 16 }),
    port: Type.Optional(Type.Integer()),
    nested: Type.Optional(
      Type.Object({ secret: Type.Optional(Type.String()) }, { additionalProperties: false }),
    ),
    list: Type.Optional(
      Type.Array(Type.Object({ name: Type.String() }, { additionalProperties: false })),
    ),
  },
  { additionalProperties: false },
);

const dir = tempDir();
afterAll(() => dir.cleanup());

function problemsOf(fn: () => unknown): { file: string; problems: string[] } {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) {
      return { file: error.file, problems: error.problems.map((p) => `${p.field}: ${p.problem}`) };
    }
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('reads a valid file', () => {
    const file = dir.write('ok.yaml', 'token: abcdefghijklmnop\nport: 5\n');
    expect(loadConfig(file, Schema)).toEqual({ token: 'abcdefghijklmnop', port: 5 });
  });

  it('names the file when it cannot be read', () => {
    const file = `${dir.path}/missing.yaml`;
    const { file: named, problems } = problemsOf(() => loadConfig(file, Schema));
    expect(named).toBe(file);
    expect(problems).toEqual([': cannot read the file (ENOENT)']);
  });

  it('reports YAML syntax errors', () => {
    const file = dir.write('bad.yaml', 'token: [unclosed\n');
    expect(problemsOf(() => loadConfig(file, Schema)).problems[0]).toMatch(/^: YAML: /);
  });

  it('refuses duplicate keys', () => {
    const file = dir.write('dup.yaml', 'token: abcdefghijklmnop\ntoken: abcdefghijklmnopq\n');
    expect(problemsOf(() => loadConfig(file, Schema)).problems[0]).toMatch(/YAML: .*unique/i);
  });

  it('refuses unknown keys, at any depth, naming the field', () => {
    const file = dir.write(
      'unknown.yaml',
      'token: abcdefghijklmnop\nprot: 1\nnested: {secrett: x}\nlist: [{name: a, nmae: b}]\n',
    );
    expect(problemsOf(() => loadConfig(file, Schema)).problems).toEqual([
      'prot: unknown key',
      'nested.secrett: unknown key',
      'list[0].nmae: unknown key',
    ]);
  });

  it('refuses tokens shorter than 16 characters', () => {
    const file = dir.write('short.yaml', 'token: short\n');
    expect(problemsOf(() => loadConfig(file, Schema)).problems).toEqual([
      'token: must be at least 16 characters long',
    ]);
  });

  it('reports a missing required field and a wrong type', () => {
    const file = dir.write('missing.yaml', 'port: eighty\n');
    expect(problemsOf(() => loadConfig(file, Schema)).problems).toEqual([
      'token: is required',
      'port: must be integer',
    ]);
  });

  it('substitutes ${ENV} in strings at any depth', () => {
    const file = dir.write(
      'env.yaml',
      'token: "${TOK}"\nnested: {secret: "pre-${SEC}-post"}\nlist: [{name: "${N}"}]\n',
    );
    const env = { TOK: 'from-the-environment', SEC: 's', N: 'n1' };
    expect(loadConfig(file, Schema, { env })).toEqual({
      token: 'from-the-environment',
      nested: { secret: 'pre-s-post' },
      list: [{ name: 'n1' }],
    });
  });

  it('names the field whose ${ENV} is not set', () => {
    const file = dir.write('unset.yaml', 'token: abcdefghijklmnop\nnested: {secret: "${NOPE}"}\n');
    expect(problemsOf(() => loadConfig(file, Schema, { env: {} })).problems).toEqual([
      'nested.secret: environment variable NOPE is not set',
    ]);
  });

  it('lets an env override replace a field, and checks the result', () => {
    const file = dir.write('override.yaml', 'token: abcdefghijklmnop\n');
    const overrides = [{ env: 'MY_TOKEN', field: ['token'] }];
    expect(
      loadConfig(file, Schema, { env: { MY_TOKEN: 'overridden-token-value' }, overrides }).token,
    ).toBe('overridden-token-value');
    expect(
      problemsOf(() => loadConfig(file, Schema, { env: { MY_TOKEN: 'short' }, overrides }))
        .problems,
    ).toEqual(['token: must be at least 16 characters long']);
  });

  it('never puts a value of the file into its message', () => {
    const file = dir.write('leak.yaml', 'token: secret-but-too-short\nport: "secretport-value"\n');
    try {
      loadConfig(
        file,
        Type.Object({ token: Type.String({ minLength: 30 }), port: Type.Integer() }),
      );
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain('secret');
      expect(String(error)).toContain(file);
    }
  });
});
