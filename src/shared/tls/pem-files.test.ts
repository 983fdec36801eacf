import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTestCa } from '../../../test/helpers/certs.js';
import { tempDir } from '../../../test/helpers/tmp.js';
import type { ConfigProblem } from '../config/config-error.js';
import { readCa, readTlsPair } from './pem-files.js';

const dir = tempDir('panoptes-pem-');
afterAll(() => dir.cleanup());
const ca = makeTestCa(dir);
const one = ca.issue('one');
const two = ca.issue('two');

describe('reading tls and ca files', () => {
  it('reads a matching pair, relative to the config directory', () => {
    const problems: ConfigProblem[] = [];
    const pair = readTlsPair({ cert: 'one.pem', key: 'one.key' }, dir.path, 'tls', problems);
    expect(problems).toEqual([]);
    expect(pair?.cert).toBe(readFileSync(one.cert, 'utf8'));
  });

  it('names the field of a missing file, a non-PEM file and a key of another certificate', () => {
    const problems: ConfigProblem[] = [];
    readTlsPair({ cert: 'nope.pem', key: one.key }, dir.path, 'tls', problems);
    readTlsPair({ cert: one.cert, key: two.key }, dir.path, 'tls', problems);
    readCa(dir.write('junk.pem', 'not a certificate'), null, 'machines[0].ca', problems);
    expect(problems.map((p) => p.field)).toEqual(['tls.cert', 'tls', 'machines[0].ca']);
    expect(problems[0]?.problem).toContain('cannot read');
    expect(problems[1]?.problem).toContain('cannot be used');
    expect(problems[2]?.problem).toContain('no PEM block');
    // A key file's content never appears in a problem.
    const keyText = readFileSync(two.key, 'utf8').split('\n')[1] ?? '';
    expect(JSON.stringify(problems)).not.toContain(keyText);
  });
});
